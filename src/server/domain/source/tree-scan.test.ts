import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SourceRejection, type TSourceLimits } from "./source.types";
import { scanTree } from "./tree-scan";

const BIG: TSourceLimits = { maxTotalBytes: 1e9, maxFiles: 1e6, maxDepth: 100, maxFileBytes: 1e9, maxPathLength: 4096 };
const dirs: string[] = [];

type TSpec = Record<string, string | { link: string } | { exec: string } | { dir: true }>;

function tree(spec: TSpec): string {
  const base = mkdtempSync(path.join(os.tmpdir(), "capstan-scan-"));
  dirs.push(base);
  const root = path.join(base, "root");
  mkdirSync(root);
  for (const [rel, v] of Object.entries(spec)) {
    const full = path.join(root, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    if (typeof v === "string") writeFileSync(full, v);
    else if ("link" in v) symlinkSync(v.link, full);
    else if ("exec" in v) writeFileSync(full, v.exec, { mode: 0o700 });
    else mkdirSync(full, { recursive: true });
  }
  return root;
}

async function rejection(p: Promise<unknown>): Promise<SourceRejection> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SourceRejection);
  return err as SourceRejection;
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("scanTree", () => {
  it("lists files, dirs and symlinks in byte order of their path, skipping only the root .git", async () => {
    const root = tree({
      z: "z",
      "a/b": "ab",
      "a-c": "ac",
      B: "B",
      é: "e",
      "a/.git/x": "nested",
      ".git/config": "x",
      ".gitignore": "g",
      "run.sh": { exec: "#!/bin/sh\n" },
      l: { link: "a/b" },
    });
    const entries = await scanTree(root, BIG);
    const paths = entries.map((e) => e.path);
    expect(paths).toEqual([".gitignore", "B", "a", "a-c", "a/.git", "a/.git/x", "a/b", "l", "run.sh", "z", "é"]);
    expect([...paths].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)))).toEqual(paths);
    expect(entries.find((e) => e.path === "a")).toEqual({ path: "a", kind: "dir", size: 0, mode: 0o755 });
    expect(entries.find((e) => e.path === "run.sh")).toMatchObject({ kind: "file", mode: 0o755, size: 10 });
    expect(entries.find((e) => e.path === "z")).toMatchObject({ kind: "file", mode: 0o644, size: 1 });
    expect(entries.find((e) => e.path === "l")).toEqual({
      path: "l",
      kind: "symlink",
      size: 0,
      mode: 0o777,
      linkTarget: "a/b",
    });
  });

  it("normalises modes whatever the umask", async () => {
    const root = tree({ a: "x", b: { exec: "y" } });
    chmodSync(path.join(root, "a"), 0o600);
    chmodSync(path.join(root, "b"), 0o711);
    const entries = await scanTree(root, BIG);
    expect(entries.map((e) => e.mode)).toEqual([0o644, 0o755]);
  });

  it("path_length counts bytes of the relative POSIX path", async () => {
    const root = tree({ "dir/é.txt": "x" }); // "dir/é.txt" = 10 bytes (é is 2)
    await expect(scanTree(root, { ...BIG, maxPathLength: 10 })).resolves.toHaveLength(2);
    const r = await rejection(scanTree(root, { ...BIG, maxPathLength: 9 }));
    expect(r).toMatchObject({ code: "path_length", detail: { actual: 10, limit: 9 }, path: "dir/é.txt" });
  });

  it("depth_limit counts path segments", async () => {
    const root = tree({ "a/b/c.txt": "x" });
    await expect(scanTree(root, { ...BIG, maxDepth: 3 })).resolves.toHaveLength(3);
    const r = await rejection(scanTree(root, { ...BIG, maxDepth: 2 }));
    expect(r).toMatchObject({ code: "depth_limit", detail: { actual: 3, limit: 2 }, path: "a/b/c.txt" });
  });

  it("depth_limit applies to directories too", async () => {
    const root = tree({ "a/b/c": { dir: true } });
    const r = await rejection(scanTree(root, { ...BIG, maxDepth: 2 }));
    expect(r).toMatchObject({ code: "depth_limit", detail: { actual: 3, limit: 2 }, path: "a/b/c" });
  });

  it("file_size_limit on a single regular file", async () => {
    const root = tree({ small: "12345", big: "1234567890" });
    await expect(scanTree(root, { ...BIG, maxFileBytes: 10 })).resolves.toHaveLength(2);
    const r = await rejection(scanTree(root, { ...BIG, maxFileBytes: 9 }));
    expect(r).toMatchObject({ code: "file_size_limit", detail: { actual: 10, limit: 9 }, path: "big" });
  });

  it("size_limit on the running total, naming the file that crosses it", async () => {
    const root = tree({ a: "123456", b: "12345", c: "" });
    await expect(scanTree(root, { ...BIG, maxTotalBytes: 11 })).resolves.toHaveLength(3);
    const r = await rejection(scanTree(root, { ...BIG, maxTotalBytes: 10 }));
    expect(r).toMatchObject({ code: "size_limit", detail: { actual: 11, limit: 10 }, path: "b" });
  });

  it("file_count_limit counts files and symlinks, not directories", async () => {
    const root = tree({ "d/a": "1", "d/b": "2", "e/c": "3", l: { link: "d/a" } });
    await expect(scanTree(root, { ...BIG, maxFiles: 4 })).resolves.toHaveLength(6);
    const r = await rejection(scanTree(root, { ...BIG, maxFiles: 3 }));
    expect(r).toMatchObject({ code: "file_count_limit", detail: { actual: 4, limit: 3 }, path: "l" });
  });

  it("accepts symlinks that stay inside the tree, including dangling ones", async () => {
    const root = tree({
      "src/index.js": "x",
      link: { link: "src/index.js" },
      "src/up": { link: "../link" },
      dirlink: { link: "src" },
      dot: { link: "." },
      dangling: { link: "missing/file" },
      via: { link: "dirlink/index.js" },
    });
    const entries = await scanTree(root, BIG);
    expect(entries.filter((e) => e.kind === "symlink").map((e) => e.path)).toEqual([
      "dangling",
      "dirlink",
      "dot",
      "link",
      "src/up",
      "via",
    ]);
  });

  it.each([
    ["../outside", "a relative target above the root"],
    ["/etc/passwd", "an absolute target"],
    ["sub/../../x", "a target that climbs out after descending"],
  ])("rejects a symlink to %s (%s) as symlink_escape", async (target) => {
    const root = tree({ "sub/f": "x", evil: { link: target } });
    const r = await rejection(scanTree(root, BIG));
    expect(r.code).toBe("symlink_escape");
    expect(r.path).toBe("evil");
    expect(r.detail).toBeUndefined();
  });

  it("rejects a nested symlink that climbs out of the root", async () => {
    const root = tree({ "a/b/evil": { link: "../../../x" } });
    expect(await rejection(scanTree(root, BIG))).toMatchObject({ code: "symlink_escape", path: "a/b/evil" });
  });

  it("resolves through other symlinks: `x -> .` then `y -> x/..` escapes although x/.. normalises to .", async () => {
    const root = tree({ x: { link: "." }, y: { link: "x/.." } });
    expect(await rejection(scanTree(root, BIG))).toMatchObject({ code: "symlink_escape", path: "y" });
  });

  it("rejects a symlink cycle", async () => {
    const root = tree({ a: { link: "b" }, b: { link: "a" } });
    expect(await rejection(scanTree(root, BIG))).toMatchObject({ code: "symlink_escape", path: "a" });
  });

  it("never follows a symlink: a link to a huge file counts nothing toward size", async () => {
    const root = tree({ big: "0123456789", link: { link: "big" }, dirlink: { link: "." } });
    // The 10 bytes count once (the file), not again through the link or through `dirlink`.
    const entries = await scanTree(root, { ...BIG, maxTotalBytes: 10, maxFileBytes: 10 });
    expect(entries.map((e) => e.path)).toEqual(["big", "dirlink", "link"]);
    const outside = path.join(path.dirname(root), "huge");
    writeFileSync(outside, Buffer.alloc(100_000));
    const root2 = tree({ link: { link: outside } });
    expect(await rejection(scanTree(root2, { ...BIG, maxTotalBytes: 10, maxFileBytes: 10 }))).toMatchObject({
      code: "symlink_escape",
    });
  });

  it("rejects names that escape when unpacked elsewhere (backslash `..`, drive letters)", async () => {
    expect(await rejection(scanTree(tree({ "a\\..\\..\\b": "x" }), BIG))).toMatchObject({
      code: "traversal",
      path: "a\\..\\..\\b",
    });
    expect(await rejection(scanTree(tree({ "C:evil": "x" }), BIG))).toMatchObject({
      code: "traversal",
      path: "C:evil",
    });
    await expect(scanTree(tree({ "a\\b": "x" }), BIG)).resolves.toHaveLength(1);
  });

  it("rejects a name that is not valid UTF-8 as traversal", async () => {
    const root = tree({ ok: "x" });
    writeFileSync(Buffer.concat([Buffer.from(root + "/bad"), Buffer.from([0xff])]), "x");
    expect(await rejection(scanTree(root, BIG))).toMatchObject({ code: "traversal" });
  });

  it("rejects special files (fifo) as traversal", async () => {
    const root = tree({ ok: "x" });
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    expect(await rejection(scanTree(root, BIG))).toMatchObject({ code: "traversal", path: "pipe" });
  });

  it("reports the first offending entry in snapshot order", async () => {
    const root = tree({ "b-long-name": "x", a: "12345678901" });
    const r = await rejection(scanTree(root, { ...BIG, maxFileBytes: 10, maxPathLength: 5 }));
    expect(r).toMatchObject({ code: "file_size_limit", path: "a" });
  });
});
