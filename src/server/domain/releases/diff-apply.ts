import { createHash } from "node:crypto";
import type { TFileChange } from "./fix-rules";

/**
 * Reading a model's answer as a unified diff and applying it to the frozen
 * files, strictly: the answer must be nothing but a unified diff (`diff -u` /
 * `git diff`; one surrounding ``` fence is tolerated), every hunk's header
 * must agree with its lines, and every hunk's context and removed lines must
 * match the file exactly (a hunk may sit at another line than its header
 * says, as `patch` allows, but never with fuzz). Files may be changed or
 * created; deletions, renames, binary patches and paths outside the tree
 * are refused. Anything else is a refusal in words, never a partial patch.
 */
export class DiffRefusal extends Error {
  constructor(
    readonly code: "ai_answer_not_a_diff" | "ai_diff_does_not_apply",
    message: string,
  ) {
    super(message);
  }
}

type THunk = { oldStart: number; oldCount: number; newStart: number; newCount: number; lines: string[] };
type TFilePatch = { path: string; created: boolean; hunks: THunk[] };

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const notDiff = (why: string) =>
  new DiffRefusal("ai_answer_not_a_diff", `The model's answer is not a unified diff: ${why}.`);
const noApply = (why: string) =>
  new DiffRefusal("ai_diff_does_not_apply", `The model's diff does not apply to the frozen source: ${why}.`);
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/** The diff text without one surrounding Markdown fence, or the answer as it is. */
export function unfence(answer: string): string {
  const t = answer.trim();
  const m = /^```[a-z-]*\n([\s\S]*?)\n?```$/.exec(t);
  return (m ? m[1]! : t) + "\n";
}

function cleanPath(raw: string, side: "a" | "b"): string | null {
  const p = raw.split("\t")[0]!.trim();
  if (p === "/dev/null") return null;
  const rel = p.startsWith(`${side}/`) ? p.slice(2) : p;
  if (
    !rel ||
    rel.startsWith("/") ||
    rel.split("/").some((s) => s === ".." || s === "." || s === "") ||
    rel.includes("\\")
  ) {
    throw notDiff(`the path ${JSON.stringify(p)} is not a relative path inside the repository`);
  }
  return rel;
}

export function parseUnifiedDiff(text: string): TFilePatch[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const files: TFilePatch[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.startsWith("diff --git ") || line.startsWith("index ") || (files.length === 0 && line.trim() === "")) {
      i++;
      continue;
    }
    if (/^(new|deleted) file mode |^(old|new) mode |^similarity index |^rename (from|to) |^Binary files /.test(line)) {
      if (/^(deleted file mode|rename |similarity|Binary files)/.test(line))
        throw notDiff(
          `it ${line.startsWith("Binary") ? "patches a binary file" : line.startsWith("deleted") ? "deletes a file" : "renames a file"}, which a fix may not do`,
        );
      i++;
      continue;
    }
    if (!line.startsWith("--- "))
      throw notDiff(`line ${i + 1} (${JSON.stringify(line.slice(0, 80))}) is neither a file header nor part of a hunk`);
    const next = lines[i + 1];
    if (!next?.startsWith("+++ ")) throw notDiff(`the file header on line ${i + 1} has no "+++" line`);
    const from = cleanPath(line.slice(4), "a");
    const to = cleanPath(next.slice(4), "b");
    if (to === null) throw notDiff(`it deletes ${from}, which a fix may not do`);
    if (from !== null && from !== to) throw notDiff(`it renames ${from} to ${to}, which a fix may not do`);
    if (files.some((f) => f.path === to)) throw notDiff(`it patches ${to} twice`);
    const file: TFilePatch = { path: to, created: from === null, hunks: [] };
    i += 2;
    while (i < lines.length && lines[i]!.startsWith("@@")) {
      const m = HUNK.exec(lines[i]!);
      if (!m) throw notDiff(`the hunk header on line ${i + 1} is malformed`);
      const hunk: THunk = {
        oldStart: Number(m[1]),
        oldCount: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newCount: m[4] === undefined ? 1 : Number(m[4]),
        lines: [],
      };
      i++;
      let oldSeen = 0;
      let newSeen = 0;
      while (i < lines.length && (oldSeen < hunk.oldCount || newSeen < hunk.newCount || lines[i]!.startsWith("\\"))) {
        const l = lines[i]!;
        const tag = l[0];
        if (tag === "\\") {
          i++;
          continue;
        }
        if (tag !== " " && tag !== "-" && tag !== "+" && l !== "") break;
        // An empty line inside a hunk is an empty context line whose leading space was lost.
        const kind = l === "" ? " " : tag!;
        if (kind !== "+") oldSeen++;
        if (kind !== "-") newSeen++;
        hunk.lines.push(kind + l.slice(1));
        i++;
      }
      if (oldSeen !== hunk.oldCount || newSeen !== hunk.newCount) {
        throw notDiff(`a hunk of ${to} says -${hunk.oldCount} +${hunk.newCount} lines but has -${oldSeen} +${newSeen}`);
      }
      file.hunks.push(hunk);
    }
    if (!file.hunks.length) throw notDiff(`${to} has a header but no hunk`);
    files.push(file);
  }
  if (!files.length) throw notDiff(text.trim() ? "it has no file header (--- a/<path>, +++ b/<path>)" : "it is empty");
  return files;
}

function applyHunks(path: string, before: string, hunks: THunk[]): string {
  const endsWithNewline = before.endsWith("\n") || before === "";
  const src = before === "" ? [] : (endsWithNewline ? before.slice(0, -1) : before).split("\n");
  const out: string[] = [];
  let cursor = 0;
  for (const [n, h] of hunks.entries()) {
    const old = h.lines.filter((l) => l[0] !== "+").map((l) => l.slice(1));
    const replacement = h.lines.filter((l) => l[0] !== "-").map((l) => l.slice(1));
    const wanted = Math.max(0, h.oldCount === 0 ? h.oldStart : h.oldStart - 1);
    const matchesAt = (at: number) =>
      at >= cursor && at + old.length <= src.length && old.every((l, k) => src[at + k] === l);
    let at = -1;
    for (let d = 0; d <= Math.max(wanted, src.length); d++) {
      if (matchesAt(wanted - d)) {
        at = wanted - d;
        break;
      }
      if (matchesAt(wanted + d)) {
        at = wanted + d;
        break;
      }
    }
    if (at < 0) throw noApply(`hunk ${n + 1} of ${path} (at line ${h.oldStart}) does not match the file's lines`);
    out.push(...src.slice(cursor, at), ...replacement);
    cursor = at + old.length;
  }
  out.push(...src.slice(cursor));
  return out.length ? out.join("\n") + (endsWithNewline ? "\n" : "") : "";
}

/**
 * Applies the diff to the frozen text files (`files`: path -> content, or
 * null for a file that exists but is not text) and returns the changes as a
 * rule fix stores them (pre-image hash, post-image; a created file has no
 * pre-image).
 */
export function applyUnifiedDiff(
  answer: string,
  files: ReadonlyMap<string, string | null>,
): { diff: string; changes: TFileChange[] } {
  const diff = unfence(answer);
  const changes: TFileChange[] = [];
  for (const f of parseUnifiedDiff(diff)) {
    const before = files.get(f.path);
    if (f.created) {
      if (before !== undefined) throw noApply(`it creates ${f.path}, which already exists`);
      changes.push({ path: f.path, before_sha256: null, after: applyHunks(f.path, "", f.hunks) });
      continue;
    }
    if (before === undefined) throw noApply(`${f.path} is not a file of the frozen source`);
    if (before === null) throw noApply(`${f.path} is not a text file`);
    const after = applyHunks(f.path, before, f.hunks);
    if (after === before) throw noApply(`it leaves ${f.path} unchanged`);
    changes.push({ path: f.path, before_sha256: sha(before), after });
  }
  return { diff, changes };
}
