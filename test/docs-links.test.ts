import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every relative link in README.md and docs/*.md points at a file that exists
 * and, when it names a heading (`file.md#anchor` or `#anchor`), at a heading
 * that exists there (GitHub's anchors: lower case, punctuation dropped,
 * spaces to dashes, `-1`, `-2` for repeats). Moving a section without fixing
 * its links fails here.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const DOCS = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks and inline code spans. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, "").replace(/`[^`\n]*`/g, "");
}

export function githubAnchor(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(path.join(ROOT, file), "utf8").replace(/^(```|~~~)[\s\S]*?^\1/gm, "");
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = githubAnchor(m[1] ?? "");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function linksOf(file: string): string[] {
  const text = prose(readFileSync(path.join(ROOT, file), "utf8"));
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? "");
}

describe("documentation links", () => {
  it("finds the documents", () => {
    expect(DOCS).toContain("README.md");
    expect(DOCS).toContain("docs/decisions.md");
    expect(DOCS).toContain("docs/configuration.md");
  });

  it("computes GitHub's anchors", () => {
    expect(githubAnchor("Running more than one replica")).toBe("running-more-than-one-replica");
    expect(githubAnchor("Performance on the `npm start` path")).toBe("performance-on-the-npm-start-path");
    expect(githubAnchor("Names of workspace resources; duplicate workspaces")).toBe(
      "names-of-workspace-resources-duplicate-workspaces",
    );
  });

  for (const file of DOCS) {
    it(`${file}: every relative link resolves`, () => {
      const broken: string[] = [];
      for (const link of linksOf(file)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith("/")) continue; // absolute URLs and server paths
        const [target, anchor] = link.split("#", 2);
        const resolved = target ? path.normalize(path.join(path.dirname(file), decodeURI(target))) : file;
        if (!existsSync(path.join(ROOT, resolved))) {
          broken.push(`${link}: no file ${resolved}`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(resolved).has(decodeURIComponent(anchor))) {
          broken.push(`${link}: no heading #${anchor} in ${resolved}`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
