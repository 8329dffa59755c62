import { execFile } from "node:child_process";
import { lstat, readFile, readdir, readlink } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import tar from "tar-stream";

/**
 * The working tree of `capstan deploy <dir>` as a tar.gz: in a git work
 * tree, what git would commit now (tracked and untracked files that are not
 * ignored, as they are on disk: uncommitted changes included); elsewhere every
 * file. Never `.git`, `node_modules` or the CLI's own `.capstan/`. Symlinks
 * stay symlinks (the freeze rejects one that leaves the tree). The server
 * freezes what arrives under the same limits as a repository.
 */
const SKIP = new Set([".git", "node_modules", ".capstan"]);

async function gitFiles(dir: string): Promise<string[] | null> {
  try {
    const { stdout } = await promisify(execFile)(
      "git",
      ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
    );
    return stdout.split("\0").filter(Boolean);
  } catch {
    return null; // not a git work tree (or no git)
  }
}

async function walk(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await walk(dir, p)));
    else out.push(p);
  }
  return out;
}

export async function packTree(dir: string): Promise<{ bytes: Buffer; files: number; rawBytes: number }> {
  const listed = (await gitFiles(dir)) ?? (await walk(dir));
  const files = [...new Set(listed)].filter((p) => !p.split("/").some((seg) => SKIP.has(seg))).sort();
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  let count = 0;
  let rawBytes = 0;
  for (const rel of files) {
    const full = path.join(dir, rel);
    const st = await lstat(full).catch(() => null);
    if (!st) continue; // tracked but deleted in the work tree
    if (st.isSymbolicLink()) {
      pack.entry({ name: rel, type: "symlink", linkname: await readlink(full), mode: 0o777 }, "");
    } else if (st.isFile()) {
      const content = await readFile(full);
      rawBytes += content.length;
      pack.entry({ name: rel, type: "file", mode: st.mode & 0o111 ? 0o755 : 0o644, mtime: new Date(0) }, content);
    } else {
      continue; // a submodule's directory, a socket: not part of the tree
    }
    count++;
  }
  pack.finalize();
  await collected;
  return { bytes: gzipSync(Buffer.concat(chunks)), files: count, rawBytes };
}
