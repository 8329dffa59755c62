import { execFileSync } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { blobStore, FsBlobStore } from "@/server/platform/blob-store";
import { sha256Hex } from "@/server/platform/crypto";
import { resetEnvCache } from "@/server/platform/env";
import { buildSnapshot, listSnapshot, readSnapshotFile, writeSnapshot } from "./snapshot";
import type { TSourceLimits } from "./source.types";
import { scanTree } from "./tree-scan";

const LIMITS: TSourceLimits = {
  maxTotalBytes: 1e9,
  maxFiles: 1e6,
  maxDepth: 100,
  maxFileBytes: 1e9,
  maxPathLength: 4096,
};
const LONG_DIR = "a-directory-name-that-is-long/" + "x".repeat(60) + "/" + "y".repeat(40);
const LONG_FILE = `${LONG_DIR}/file-with-a-long-name.txt`; // > 100 bytes
const dirs: string[] = [];

type TFile = { content: string | Buffer; exec?: boolean } | { link: string };
const CONTENT: Record<string, TFile> = {
  "package.json": { content: '{"name":"app"}\n' },
  "bin/run": { content: "#!/bin/sh\necho hi\n", exec: true },
  "src/index.js": { content: "console.log(1)\n" },
  "src/empty.txt": { content: "" },
  "src/block.bin": { content: Buffer.alloc(512, 7) },
  "src/block1.bin": { content: Buffer.alloc(513, 9) },
  "héllo wörld.md": { content: "unicode\n" },
  current: { link: "src/index.js" },
  srclink: { link: "src" },
  [LONG_FILE]: { content: "deep\n" },
  "a-directory-name-that-is-long/back-link": { link: `../${LONG_FILE}` }, // target > 100 bytes
  [`${LONG_DIR}/up`]: { link: "../../../package.json" },
};

/** Materialises CONTENT; `variant` changes everything a checkout may differ in except content. */
function checkout(variant: 0 | 1): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "capstan-snap-"));
  dirs.push(root);
  const keys = Object.keys(CONTENT);
  for (const rel of variant === 0 ? keys : [...keys].reverse()) {
    const spec = CONTENT[rel] as TFile;
    const full = path.join(root, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    if ("link" in spec) {
      symlinkSync(spec.link, full);
      continue;
    }
    writeFileSync(full, spec.content);
    const mode = spec.exec ? (variant === 0 ? 0o755 : 0o700) : variant === 0 ? 0o644 : 0o600;
    chmodSync(full, mode);
    const t = variant === 0 ? new Date("2001-02-03T04:05:06Z") : new Date();
    utimesSync(full, t, t);
  }
  if (variant === 1) chmodSync(path.join(root, "src"), 0o700);
  return root;
}

async function snapshotOf(root: string): Promise<Buffer> {
  return buildSnapshot(root, await scanTree(root, LIMITS));
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("buildSnapshot", () => {
  it("is byte-identical across runs", async () => {
    const root = checkout(0);
    const a = await snapshotOf(root);
    const b = await snapshotOf(root);
    expect(sha256Hex(a)).toBe(sha256Hex(b));
    expect(a.equals(b)).toBe(true);
  });

  it("is byte-identical across checkouts that differ in mtimes, permission bits and creation order", async () => {
    const a = await snapshotOf(checkout(0));
    const b = await snapshotOf(checkout(1));
    expect(b.equals(a)).toBe(true);
  });

  it("pins the gzip header (mtime 0, OS byte) and the tar header fields", async () => {
    const buf = await snapshotOf(checkout(0));
    expect([...buf.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3]);
    const tar = gunzipSync(buf);
    expect(tar.length % 512).toBe(0);
    const first = tar.subarray(0, 512); // the first directory
    expect(first.subarray(0, 31).toString()).toBe("a-directory-name-that-is-long/\0");
    expect(first.subarray(156, 157).toString()).toBe("5");
    expect(first.subarray(100, 108).toString()).toBe("0000755\0");
    expect(first.subarray(108, 124).toString()).toBe("0000000\0".repeat(2));
    expect(first.subarray(136, 148).toString()).toBe("00000000000\0");
    expect(first.subarray(257, 265).toString()).toBe("ustar\u000000");
    expect(first.subarray(265, 329).every((b) => b === 0)).toBe(true); // uname, gname
    expect(tar.subarray(tar.length - 1024).every((b) => b === 0)).toBe(true);
  });

  it("round-trips through listSnapshot and readSnapshotFile, long paths and link targets included", async () => {
    const root = checkout(1);
    const entries = await scanTree(root, LIMITS);
    const buf = await buildSnapshot(root, entries);
    const listed = await listSnapshot(buf);
    expect(listed).toEqual(entries);
    expect(listed.some((e) => Buffer.byteLength(e.path) > 100)).toBe(true);
    for (const e of entries.filter((x) => x.kind === "file")) {
      expect((await readSnapshotFile(buf, e.path))?.equals(readFileSync(path.join(root, e.path)))).toBe(true);
    }
    expect(listed.find((e) => e.path === "bin/run")?.mode).toBe(0o755);
    expect(listed.find((e) => e.path === "package.json")?.mode).toBe(0o644);
    expect(listed.find((e) => e.path === "srclink")).toEqual({
      path: "srclink",
      kind: "symlink",
      size: 0,
      mode: 0o777,
      linkTarget: "src",
    });
    const long = listed.find((e) => e.kind === "symlink" && (e.linkTarget?.length ?? 0) > 100);
    expect(long).toBeDefined();
    expect(await readSnapshotFile(buf, "missing")).toBeNull();
    expect(await readSnapshotFile(buf, "current")).toBeNull(); // a symlink is not a file
    expect(await readSnapshotFile(buf, "src")).toBeNull();
  });

  it("unpacks with the system tar to the same tree", async () => {
    const root = checkout(0);
    const buf = await snapshotOf(root);
    const out = mkdtempSync(path.join(os.tmpdir(), "capstan-untar-"));
    dirs.push(out);
    const file = path.join(out, "snap.tar.gz");
    writeFileSync(file, buf);
    mkdirSync(path.join(out, "x"));
    execFileSync("tar", ["-xzf", file, "-C", path.join(out, "x")]);
    for (const e of await scanTree(root, LIMITS)) {
      const got = path.join(out, "x", e.path);
      if (e.kind === "file") {
        expect(readFileSync(got).equals(readFileSync(path.join(root, e.path)))).toBe(true);
        expect(lstatSync(got).mode & 0o100).toBe(e.mode & 0o100);
      } else if (e.kind === "symlink") {
        expect(readlinkSync(got)).toBe(e.linkTarget);
      } else {
        expect(lstatSync(got).isDirectory()).toBe(true);
      }
    }
  });

  it("never reads through a symlink swapped in after the scan", async () => {
    const root = checkout(0);
    const entries = await scanTree(root, LIMITS);
    const target = path.join(root, "package.json");
    unlinkSync(target);
    symlinkSync("/etc/passwd", target);
    await expect(buildSnapshot(root, entries)).rejects.toThrow();
  });

  it("refuses entries that are unsafe, unsorted or lack their parent directory", async () => {
    const root = checkout(0);
    await expect(buildSnapshot(root, [{ path: "../x", kind: "file", size: 0, mode: 0o644 }])).rejects.toThrow(/unsafe/);
    await expect(buildSnapshot(root, [{ path: "src/index.js", kind: "file", size: 15, mode: 0o644 }])).rejects.toThrow(
      /parent/,
    );
    await expect(
      buildSnapshot(root, [
        { path: "package.json", kind: "file", size: 15, mode: 0o644 },
        { path: "current", kind: "symlink", size: 0, mode: 0o777, linkTarget: "src/index.js" },
      ]),
    ).rejects.toThrow(/order/);
  });

  it("builds an empty snapshot for an empty tree", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "capstan-snap-"));
    dirs.push(root);
    const buf = await snapshotOf(root);
    expect(await listSnapshot(buf)).toEqual([]);
  });
});

describe("reading snapshots (tar-stream)", () => {
  it("reads an archive GNU tar wrote (./ names, GNU long names and link targets) as the same tree", async () => {
    const root = checkout(1);
    const entries = await scanTree(root, LIMITS);
    const out = mkdtempSync(path.join(os.tmpdir(), "capstan-gnutar-"));
    dirs.push(out);
    const file = path.join(out, "gnu.tar.gz");
    execFileSync("tar", [
      "--format=gnu",
      "--no-recursion",
      "-czf",
      file,
      "-C",
      root,
      ...entries.map((e) => `./${e.path}`),
    ]);
    const listed = (await listSnapshot(readFileSync(file))).map(({ size, ...e }) => ({
      ...e,
      size: e.kind === "file" ? size : 0,
    }));
    expect(listed.map((e) => e.path)).toEqual(entries.map((e) => e.path));
    expect(listed.filter((e) => e.kind === "symlink")).toEqual(
      entries.filter((e) => e.kind === "symlink").map((e) => ({ ...e, mode: 0o777 })),
    );
    const long = entries.find((e) => e.kind === "file" && Buffer.byteLength(e.path) > 100);
    expect(
      (await readSnapshotFile(readFileSync(file), long!.path))?.equals(readFileSync(path.join(root, long!.path))),
    ).toBe(true);
  });

  it("refuses a corrupt header, a truncated archive and entry types a snapshot never holds", async () => {
    const buf = await snapshotOf(checkout(0));
    const tar = gunzipSync(buf);
    const corrupt = Buffer.from(tar);
    corrupt[0] = corrupt[0]! ^ 1; // the first name byte: the header checksum no longer matches
    await expect(listSnapshot(gzipSync(corrupt))).rejects.toThrow(/header/i);
    await expect(listSnapshot(gzipSync(tar.subarray(0, 512 + 100)))).rejects.toThrow();
    const hardlink = Buffer.from(tar.subarray(0, 512));
    hardlink[156] = "1".charCodeAt(0);
    hardlink.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of hardlink) sum += b;
    hardlink.write(sum.toString(8).padStart(6, "0") + "\0 ", 148, 8, "ascii");
    await expect(listSnapshot(gzipSync(Buffer.concat([hardlink, Buffer.alloc(1024)])))).rejects.toThrow(
      /unsupported tar entry type "link"/,
    );
  });
});

describe("writeSnapshot (streamed to a file)", () => {
  it("writes exactly the bytes buildSnapshot returns, for a small tree and for one larger than zlib's buffers", async () => {
    const big = mkdtempSync(path.join(os.tmpdir(), "capstan-snap-"));
    dirs.push(big);
    mkdirSync(path.join(big, "d"));
    // Incompressible and compressible files of several sizes, so deflate emits many output chunks.
    for (let i = 0; i < 6; i++)
      writeFileSync(
        path.join(big, "d", `f${i}.bin`),
        i % 2
          ? Buffer.alloc(700_000 * (i + 1), i)
          : Buffer.from(Array.from({ length: 300_000 * (i + 1) }, (_, j) => (j * 7919 + i) % 251)),
      );
    for (const root of [checkout(0), big]) {
      const entries = await scanTree(root, LIMITS);
      const dest = path.join(mkdtempSync(path.join(os.tmpdir(), "capstan-snapout-")), "s.tar.gz");
      dirs.push(path.dirname(dest));
      await writeSnapshot(root, entries, dest);
      const streamed = readFileSync(dest);
      expect(sha256Hex(streamed)).toBe(sha256Hex(await buildSnapshot(root, entries)));
      expect(streamed[9]).toBe(3);
      expect(streamed.readUInt32LE(4)).toBe(0);
    }
  });
});

describe("FsBlobStore (where snapshots go)", () => {
  it("stores content-addressed, reports created once, reads back and verifies", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "capstan-blobs-"));
    dirs.push(root);
    const store = new FsBlobStore(root);
    const snap = await snapshotOf(checkout(0));
    const sha = sha256Hex(snap);
    const first = await store.put(snap, "application/gzip");
    expect(first).toEqual({ uri: `blob:sha256:${sha}`, sha256: sha, size_bytes: snap.length, created: true });
    expect(readFileSync(path.join(root, "sha256", sha.slice(0, 2), sha.slice(2, 4), sha)).equals(snap)).toBe(true);
    expect((await store.put(Buffer.from(snap))).created).toBe(false);
    const file = path.join(root, "..", `${path.basename(root)}.in`);
    writeFileSync(file, snap);
    expect(await store.putFile(file)).toEqual({ ...first, created: false });
    rmSync(file);
    expect(readdirSync(path.join(root, "tmp"))).toEqual([]);
    expect(await store.has(sha)).toBe(true);
    expect((await store.get(sha))?.equals(snap)).toBe(true);
    expect(await store.get("0".repeat(64))).toBeNull();
    expect(await store.has("../../etc/passwd")).toBe(false);
    expect(await store.get("../../etc/passwd")).toBeNull();
    writeFileSync(path.join(root, "sha256", sha.slice(0, 2), sha.slice(2, 4), sha), Buffer.alloc(snap.length));
    await expect(store.get(sha)).rejects.toThrow(/corrupt/);
  });

  it("blobStore() lives under CAPSTAN_DATA_DIR/blobs", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "capstan-data-"));
    dirs.push(dataDir);
    const before = process.env.CAPSTAN_DATA_DIR;
    process.env.CAPSTAN_DATA_DIR = dataDir;
    resetEnvCache();
    try {
      const ev = await blobStore().put(Buffer.from("hello"));
      expect(
        readFileSync(
          path.join(dataDir, "blobs", "sha256", ev.sha256.slice(0, 2), ev.sha256.slice(2, 4), ev.sha256),
          "utf8",
        ),
      ).toBe("hello");
    } finally {
      if (before === undefined) delete process.env.CAPSTAN_DATA_DIR;
      else process.env.CAPSTAN_DATA_DIR = before;
      resetEnvCache();
    }
  });
});
