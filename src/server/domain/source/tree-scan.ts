import type { Stats } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import path from "node:path";
import { SourceRejection, type TSourceLimits, type TTreeEntry } from "./source.types";

/**
 * Walks a checked-out source tree and enforces the spec 2.4 limits. Never
 * follows a symlink (lstat only; a symlink is recorded with its target), skips
 * only `.git` at the root, and returns the entries in byte order of their
 * POSIX path, the order of the snapshot. The walk itself visits entries in
 * that same order, so "the first offending entry" is well defined: each
 * rejection names the first entry, in snapshot order, that breaks a rule.
 *
 * Per entry, the checks run in this order: name (`traversal`), path length,
 * depth, special file (`traversal`), symlink target (`symlink_escape`), file
 * size, running total size, running file count. Directories are returned
 * (kind `dir`, the tar needs them) but are not counted as files.
 */
export async function scanTree(root: string, limits: TSourceLimits): Promise<TTreeEntry[]> {
  const state = { root, limits, out: [] as TTreeEntry[], files: 0, total: 0 };
  await walkDir(state, []);
  return state.out;
}

const DOT_GIT = Buffer.from(".git");

type TState = { root: string; limits: TSourceLimits; out: TTreeEntry[]; files: number; total: number };
type TChild = { name: Buffer; stats: Stats };

async function walkDir(state: TState, dirSegs: string[]): Promise<void> {
  const abs = path.join(state.root, ...dirSegs);
  const names = await readdir(abs, { encoding: "buffer" });
  const children: TChild[] = [];
  for (const name of names) {
    if (dirSegs.length === 0 && name.equals(DOT_GIT)) continue;
    // By raw bytes: a name that is not valid UTF-8 is rejected below, in walk order, not here.
    children.push({ name, stats: await lstat(Buffer.concat([Buffer.from(abs + path.sep), name])) });
  }
  // Byte order of full paths: a directory `d` sorts at `d` but its children at `d/`, so a
  // sibling `d-x` (0x2D < 0x2F) comes between the directory entry and its contents.
  type TEvent = { key: Buffer; child: TChild; descend: boolean };
  const events: TEvent[] = [];
  for (const child of children) {
    events.push({ key: child.name, child, descend: false });
    if (child.stats.isDirectory())
      events.push({ key: Buffer.concat([child.name, Buffer.from("/")]), child, descend: true });
  }
  events.sort((a, b) => Buffer.compare(a.key, b.key));
  for (const ev of events) {
    const name = decodeName(ev.child.name, dirSegs);
    if (ev.descend) await walkDir(state, [...dirSegs, name]);
    else await visit(state, [...dirSegs, name], ev.child.stats);
  }
}

function decodeName(raw: Buffer, dirSegs: string[]): string {
  const name = raw.toString("utf8");
  const rel = [...dirSegs, name].join("/");
  if (!Buffer.from(name, "utf8").equals(raw)) {
    throw new SourceRejection("traversal", "A file name is not valid UTF-8", undefined, rel);
  }
  // Names that mean "parent" or "absolute" on some other system (a backslash-separated `..`,
  // a leading backslash, a drive letter) would escape wherever the snapshot is unpacked there.
  if (
    name === ".." ||
    name === "." ||
    name.split("\\").includes("..") ||
    name.startsWith("\\") ||
    /^[A-Za-z]:/.test(name)
  ) {
    throw new SourceRejection(
      "traversal",
      `The file name ${JSON.stringify(name)} can escape the tree when unpacked`,
      undefined,
      rel,
    );
  }
  return name;
}

async function visit(state: TState, segs: string[], st: Stats): Promise<void> {
  const { limits } = state;
  const rel = segs.join("/");
  const pathBytes = Buffer.byteLength(rel, "utf8");
  if (pathBytes > limits.maxPathLength) {
    throw new SourceRejection(
      "path_length",
      `A path is ${pathBytes} bytes long, over the limit of ${limits.maxPathLength}`,
      { actual: pathBytes, limit: limits.maxPathLength },
      rel,
    );
  }
  if (segs.length > limits.maxDepth) {
    throw new SourceRejection(
      "depth_limit",
      `A path is ${segs.length} levels deep, over the limit of ${limits.maxDepth}`,
      { actual: segs.length, limit: limits.maxDepth },
      rel,
    );
  }
  if (st.isDirectory()) {
    state.out.push({ path: rel, kind: "dir", size: 0, mode: 0o755 });
    return;
  }
  if (!st.isFile() && !st.isSymbolicLink()) {
    // FIFOs, sockets and devices cannot come from git; in an upload they are at best
    // useless and at worst a way to hang or reach the host, so they reject like traversal.
    throw new SourceRejection("traversal", "The tree contains a special file (fifo, socket or device)", undefined, rel);
  }
  let entry: TTreeEntry;
  if (st.isSymbolicLink()) {
    const target = await readLinkTarget(state.root, rel);
    await checkLinkTarget(state.root, segs, target, rel);
    // The link's own bytes (its target) are not content: size 0, as in the tar header.
    entry = { path: rel, kind: "symlink", size: 0, mode: 0o777, linkTarget: target };
  } else {
    if (st.size > limits.maxFileBytes) {
      throw new SourceRejection(
        "file_size_limit",
        `A file is ${st.size} bytes, over the limit of ${limits.maxFileBytes}`,
        { actual: st.size, limit: limits.maxFileBytes },
        rel,
      );
    }
    state.total += st.size;
    if (state.total > limits.maxTotalBytes) {
      throw new SourceRejection(
        "size_limit",
        `The tree is over the size limit of ${limits.maxTotalBytes} bytes`,
        { actual: state.total, limit: limits.maxTotalBytes },
        rel,
      );
    }
    entry = { path: rel, kind: "file", size: st.size, mode: st.mode & 0o111 ? 0o755 : 0o644 };
  }
  state.files += 1;
  if (state.files > limits.maxFiles) {
    throw new SourceRejection(
      "file_count_limit",
      `The tree has more than ${limits.maxFiles} files`,
      { actual: state.files, limit: limits.maxFiles },
      rel,
    );
  }
  state.out.push(entry);
}

async function readLinkTarget(root: string, rel: string): Promise<string> {
  const raw = await readlink(path.join(root, rel), { encoding: "buffer" });
  const target = raw.toString("utf8");
  if (!Buffer.from(target, "utf8").equals(raw) || target.length === 0) {
    throw new SourceRejection("symlink_escape", "A symlink target is empty or not valid UTF-8", undefined, rel);
  }
  return target;
}

const MAX_LINK_HOPS = 40; // the kernel's own limit (ELOOP)

/**
 * Rejects a symlink whose target is absolute or resolves outside the root.
 * Resolution is lexical (nothing outside the root is ever touched) but
 * symlink-aware inside the tree: `a -> .` then `b -> a/..` is an escape even
 * though `a/..` normalises to `.`, because the kernel resolves `a` first.
 * Chains longer than the kernel's limit (cycles included) are rejected too.
 */
async function checkLinkTarget(root: string, linkSegs: string[], target: string, rel: string): Promise<void> {
  const escape = (why: string) => new SourceRejection("symlink_escape", `The symlink ${rel} ${why}`, undefined, rel);
  const stack = linkSegs.slice(0, -1);
  const queue = target.split("/");
  if (target.startsWith("/")) throw escape("has an absolute target");
  let hops = 0;
  while (queue.length > 0) {
    const seg = queue.shift() as string;
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (stack.length === 0) throw escape("points outside the repository");
      stack.pop();
      continue;
    }
    stack.push(seg);
    // Every component on the stack is a real directory (or missing), so this lstat stays inside the root.
    const st = await lstat(path.join(root, ...stack)).catch(() => null);
    if (!st?.isSymbolicLink()) continue;
    if (++hops > MAX_LINK_HOPS) throw escape("starts a chain of symlinks that is too long or cyclic");
    const next = (await readlink(path.join(root, ...stack), { encoding: "buffer" })).toString("utf8");
    if (next.startsWith("/")) throw escape("resolves through a symlink with an absolute target");
    stack.pop();
    queue.unshift(...next.split("/"));
  }
}
