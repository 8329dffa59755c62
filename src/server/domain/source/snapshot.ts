import { constants, createWriteStream } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { createGzip, gunzip as gunzipCb, gzip as gzipCb } from "node:zlib";
import { extract } from "tar-stream";
import type { TTreeEntry } from "./source.types";

/**
 * The frozen form of a source tree: a tar.gz written by hand so that the same
 * tree always gives the same bytes, whatever the checkout's mtimes, owners,
 * umask or readdir order. POSIX ustar headers, a PAX extended header when a
 * path or link target is over 100 bytes or not ASCII, mtime 0, uid/gid 0,
 * empty uname/gname, modes 0755 (dirs, executables) / 0644 / 0777 (symlinks),
 * entries in the given (scanTree) order, then gzip level 9 with mtime 0 and
 * OS byte 3 (Unix) pinned.
 *
 * The tar stream is a pure function of the tree. The gzip layer is a pure
 * function of the tar for a given zlib build (`process.versions.zlib`): a Node
 * upgrade that changes the bundled zlib may compress differently.
 */
export const SNAPSHOT_GZIP_LEVEL = 9;
const BLOCK = 512;
const GZIP_OS_UNIX = 3;

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);

export async function buildSnapshot(root: string, entries: TTreeEntry[]): Promise<Buffer> {
  checkEntries(entries);
  const chunks: Buffer[] = [];
  for await (const c of tarChunks(root, entries)) chunks.push(c);
  const gz = await gzip(Buffer.concat(chunks), { level: SNAPSHOT_GZIP_LEVEL });
  pinGzipHeader(gz, 0);
  return gz;
}

/**
 * The same bytes as buildSnapshot, streamed into `dest` one file at a time
 * (the tree is never in memory whole): deflate's output does not depend on
 * how its input is split, so both give the same sha256.
 */
export async function writeSnapshot(root: string, entries: TTreeEntry[], dest: string): Promise<void> {
  checkEntries(entries);
  let offset = 0;
  const pin = new Transform({
    transform(chunk: Buffer, _enc, done) {
      pinGzipHeader(chunk, offset);
      offset += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(
    Readable.from(tarChunks(root, entries)),
    createGzip({ level: SNAPSHOT_GZIP_LEVEL }),
    pin,
    createWriteStream(dest, { mode: 0o600 }),
  );
}

/** RFC 1952 header: bytes 4..7 MTIME, 9 OS. zlib already writes mtime 0; the OS byte depends on the build platform. */
function pinGzipHeader(chunk: Buffer, at: number): void {
  for (let i = Math.max(at, 4); i < Math.min(at + chunk.length, 10); i++) {
    if (i <= 7) chunk[i - at] = 0;
    else if (i === 9) chunk[i - at] = GZIP_OS_UNIX;
  }
}

async function* tarChunks(root: string, entries: TTreeEntry[]): AsyncGenerator<Buffer> {
  for (const e of entries) {
    const name = e.kind === "dir" ? `${e.path}/` : e.path;
    const link = e.kind === "symlink" ? (e.linkTarget ?? "") : "";
    const mode = e.kind === "file" ? (e.mode === 0o755 ? 0o755 : 0o644) : e.kind === "dir" ? 0o755 : 0o777;
    const data = e.kind === "file" ? await readRegular(path.join(root, e.path), e) : Buffer.alloc(0);
    const records: Buffer[] = [];
    if (needsPax(name)) records.push(paxRecord("path", name));
    if (needsPax(link)) records.push(paxRecord("linkpath", link));
    if (records.length > 0) {
      const pax = Buffer.concat(records);
      yield header({
        name: `PaxHeader/${asciiFallback(name, 90)}`,
        mode: 0o644,
        size: pax.length,
        type: "x",
        link: "",
      });
      yield pad(pax);
    }
    const type = e.kind === "file" ? "0" : e.kind === "dir" ? "5" : "2";
    yield header({ name: asciiFallback(name, 100), mode, size: data.length, type, link: asciiFallback(link, 100) });
    yield pad(data);
  }
  yield Buffer.alloc(BLOCK * 2);
}

/** Defence in depth: the entries must be the safe, sorted, parent-first list scanTree returns. */
function checkEntries(entries: TTreeEntry[]): void {
  const dirs = new Set<string>();
  let prev: Buffer | null = null;
  for (const e of entries) {
    const segs = e.path.split("/");
    if (segs.some((s) => s === "" || s === "." || s === ".." || s.includes("\0")))
      throw new Error(`unsafe snapshot path ${JSON.stringify(e.path)}`);
    const parent = segs.slice(0, -1).join("/");
    if (parent !== "" && !dirs.has(parent))
      throw new Error(`snapshot entry ${e.path} comes without its parent directory`);
    const key = Buffer.from(e.path, "utf8");
    if (prev && Buffer.compare(prev, key) >= 0)
      throw new Error(`snapshot entries are not in strict byte order at ${e.path}`);
    prev = key;
    if (e.kind === "dir") dirs.add(e.path);
    if (e.kind === "symlink" && !e.linkTarget) throw new Error(`symlink ${e.path} has no target`);
  }
}

/** Opens without following a final symlink and checks the file is the one scanTree saw. */
async function readRegular(full: string, e: TTreeEntry): Promise<Buffer> {
  const fh = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.size !== e.size) throw new Error(`${e.path} changed between scan and snapshot`);
    const data = await fh.readFile();
    if (data.length !== e.size) throw new Error(`${e.path} changed while being read`);
    return data;
  } finally {
    await fh.close();
  }
}

function needsPax(s: string): boolean {
  return Buffer.byteLength(s, "utf8") > 100 || /[^\x20-\x7e]/.test(s);
}

/** The ustar name field when a PAX record carries the real name: printable ASCII, truncated. */
function asciiFallback(s: string, max: number): string {
  return s.replace(/[^\x20-\x7e]/g, "_").slice(0, max);
}

/** `"<len> <key>=<value>\n"` where len counts the whole record, its own digits included. */
function paxRecord(key: string, value: string): Buffer {
  const body = Buffer.from(` ${key}=${value}\n`, "utf8");
  let len = body.length + String(body.length).length;
  while (String(len).length + body.length !== len) len = String(len).length + body.length;
  return Buffer.concat([Buffer.from(String(len)), body]);
}

function pad(data: Buffer): Buffer {
  const rest = data.length % BLOCK;
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(BLOCK - rest)]);
}

function octal(buf: Buffer, offset: number, width: number, value: number): void {
  const s = value.toString(8).padStart(width - 1, "0");
  if (s.length > width - 1) throw new Error(`value ${value} does not fit a ${width}-byte tar field`);
  buf.write(s + "\0", offset, "ascii");
}

function header(h: { name: string; mode: number; size: number; type: string; link: string }): Buffer {
  const b = Buffer.alloc(BLOCK);
  b.write(h.name, 0, 100, "ascii");
  octal(b, 100, 8, h.mode);
  octal(b, 108, 8, 0); // uid
  octal(b, 116, 8, 0); // gid
  octal(b, 124, 12, h.size);
  octal(b, 136, 12, 0); // mtime
  b.write(h.type, 156, 1, "ascii");
  b.write(h.link, 157, 100, "ascii");
  b.write("ustar\u000000", 257, 8, "ascii"); // magic "ustar\0" + version "00"; uname, gname, dev, prefix stay empty
  b.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of b) sum += byte;
  b.write(sum.toString(8).padStart(6, "0") + "\0 ", 148, 8, "ascii");
  return b;
}

// ---- reading (tests, runners) -------------------------------------------------------------

export type TSnapshotEntry = {
  path: string;
  kind: TTreeEntry["kind"];
  size: number;
  mode: number;
  linkTarget?: string;
};

/** Lists a snapshot (or any ustar/PAX/GNU tar.gz of files, dirs and symlinks) in archive order. */
export async function listSnapshot(buf: Buffer): Promise<TSnapshotEntry[]> {
  const out: TSnapshotEntry[] = [];
  for (const { data: _data, ...entry } of await parseTar(await gunzip(buf))) out.push(entry);
  return out;
}

/** The bytes of a regular file in a snapshot, or null when there is no such file. */
export async function readSnapshotFile(buf: Buffer, filePath: string): Promise<Buffer | null> {
  for (const e of await parseTar(await gunzip(buf))) {
    if (e.kind === "file" && e.path === filePath) return e.data;
  }
  return null;
}

/** Every entry of a snapshot with its bytes (fixes rebuild a patched tree from it). */
export async function readSnapshotEntries(buf: Buffer): Promise<Array<TSnapshotEntry & { data: Buffer }>> {
  return parseTar(await gunzip(buf));
}

/**
 * The entries of a tar (tar-stream: header checksums, PAX and GNU long names
 * and link targets, ustar prefixes), names without a leading `./` or a
 * trailing `/`; an entry type other than file, directory or symlink is refused.
 */
async function parseTar(tar: Buffer): Promise<Array<TSnapshotEntry & { data: Buffer }>> {
  const out: Array<TSnapshotEntry & { data: Buffer }> = [];
  const extractor = extract();
  extractor.end(tar);
  for await (const entry of extractor) {
    const h = entry.header;
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    const data = Buffer.concat(chunks);
    const name = h.name.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
    const mode = (h.mode ?? 0) & 0o7777;
    if (h.type === "file" || h.type === "contiguous-file")
      out.push({ path: name, kind: "file", size: data.length, mode, data });
    else if (h.type === "directory") out.push({ path: name, kind: "dir", size: 0, mode, data });
    else if (h.type === "symlink")
      out.push({ path: name, kind: "symlink", size: 0, mode, linkTarget: h.linkname ?? "", data });
    else throw new Error(`unsupported tar entry type ${JSON.stringify(h.type)} for ${name}`);
  }
  return out;
}
