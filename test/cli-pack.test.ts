import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import tar from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { packTree } from "@/cli/dev/pack";
import { mockAnswer } from "@/cli/dev/mock-ai";

const root = mkdtempSync(path.join(os.tmpdir(), "capstan-pack-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function names(bytes: Buffer): Promise<Record<string, string>> {
  const extract = tar.extract();
  const out: Record<string, string> = {};
  const done = (async () => {
    for await (const e of extract) {
      const chunks: Buffer[] = [];
      for await (const c of e) chunks.push(c as Buffer);
      out[e.header.name] =
        e.header.type === "symlink" ? `-> ${e.header.linkname ?? ""}` : Buffer.concat(chunks).toString();
    }
  })();
  extract.end(gunzipSync(bytes));
  await done;
  return out;
}

function tree(dir: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
}

describe("capstan deploy's packing of a working tree", () => {
  it("in a git work tree: what git would commit now (untracked included, ignored and deleted not), never node_modules or .capstan", async () => {
    const dir = path.join(root, "git");
    tree(dir, {
      "server.js": "v1",
      ".gitignore": "secret.env\n",
      "secret.env": "K=V",
      "node_modules/x/index.js": "x",
      ".capstan/project.json": "{}",
      "gone.txt": "x",
    });
    execFileSync("git", ["init", "-q"], { cwd: dir });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e.x", "add", "-A"], { cwd: dir });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e.x", "commit", "-qm", "x"], { cwd: dir });
    tree(dir, { "server.js": "v2 uncommitted", "new.js": "untracked" });
    rmSync(path.join(dir, "gone.txt"));
    symlinkSync("server.js", path.join(dir, "link.js"));
    const packed = await packTree(dir);
    expect(await names(packed.bytes)).toEqual({
      ".gitignore": "secret.env\n",
      "link.js": "-> server.js",
      "new.js": "untracked",
      "server.js": "v2 uncommitted",
    });
    expect(packed.files).toBe(4);
  });

  it("elsewhere: every file but .git, node_modules and .capstan, in a stable order", async () => {
    const dir = path.join(root, "plain");
    tree(dir, { "b.js": "b", "a/c.js": "c", "node_modules/y.js": "y", ".capstan/p.json": "{}" });
    const first = await packTree(dir);
    expect(Object.keys(await names(first.bytes))).toEqual(["a/c.js", "b.js"]);
    expect((await packTree(dir)).bytes.equals(first.bytes)).toBe(true);
  });
});

describe("the mock provider's answer", () => {
  it("echoes the last user message behind a not-a-real-model marker and counts tokens", () => {
    const a = mockAnswer({
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hello there" },
      ],
    });
    expect(a.text).toBe("[MOCK-NOT-A-REAL-MODEL] You said: hello there");
    expect(a.prompt).toBe(4);
    expect(mockAnswer({ messages: [{ role: "user", content: "x y z" }], max_tokens: 1 }).text).toBe(
      "[MOCK-NOT-A-REAL-MODEL]",
    );
  });
});
