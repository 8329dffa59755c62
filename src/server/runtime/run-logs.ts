import { statSync } from "node:fs";
import { open, stat } from "node:fs/promises";
import path from "node:path";

/** Reads of a deployment's logs (`<dir>/log/app.log`, rotated by the launcher; `build.log` while it builds). */
async function tail(file: string, maxBytes: number): Promise<string> {
  try {
    const size = (await stat(file)).size;
    if (!size) return "";
    const fh = await open(file, "r");
    try {
      const len = Math.min(size, maxBytes);
      const buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, size - len);
      return buf.toString("utf8");
    } finally {
      await fh.close();
    }
  } catch {
    return "";
  }
}

export const appLogFile = (dir: string) => path.join(dir, "log", "app.log");

export const runLogTail = (dir: string, maxBytes: number) => tail(appLogFile(dir), maxBytes);
export const buildLogTail = (dir: string, maxBytes: number) => tail(path.join(dir, "log", "build.log"), maxBytes);

/** Synchronous on purpose (an invocation asks before and after the call): one cached metadata read, no pool hop. */
export async function logSizeOf(dir: string): Promise<number> {
  try {
    return statSync(appLogFile(dir), { throwIfNoEntry: false })?.size ?? 0;
  } catch {
    return 0;
  }
}

export async function logSinceOf(dir: string, offset: number, maxBytes: number): Promise<string> {
  const size = await logSizeOf(dir);
  const from = size < offset ? 0 : offset; // rotated meanwhile: the new log from its start
  const len = Math.min(size - from, maxBytes);
  if (len <= 0) return "";
  const fh = await open(appLogFile(dir), "r").catch(() => null);
  if (!fh) return "";
  try {
    const buf = Buffer.alloc(len);
    await fh.read(buf, 0, len, from);
    return buf.toString("utf8");
  } finally {
    await fh.close();
  }
}

/** Where a reader of the app's log stands: the file (by inode, which a rotation's rename keeps) and the offset in it. */
export type TLogCursor = { ino: number; offset: number };
/** `lost`: the log was rotated more than once since the cursor, so an unknown part of it is gone. */
export type TLogRead = { text: string; next: TLogCursor; lost: boolean };

async function readRange(file: string, from: number, len: number): Promise<Buffer> {
  if (len <= 0) return Buffer.alloc(0);
  const fh = await open(file, "r").catch(() => null);
  if (!fh) return Buffer.alloc(0);
  try {
    const buf = Buffer.alloc(len);
    const { bytesRead } = await fh.read(buf, 0, len, from);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/**
 * The app's log from `cursor`, across the launcher's rotation (`app.log` is
 * renamed to `app.log.1`, keeping its inode): the rest of the rotated file
 * first, then the current one. Whole lines only (a line cut at `maxBytes` is
 * left for the next read) unless `final`; a single line longer than
 * `maxBytes` is returned cut. At most one read's worth: callers loop.
 */
export async function readLogFrom(
  dir: string,
  cursor: TLogCursor | null,
  maxBytes: number,
  final: boolean,
): Promise<TLogRead> {
  const file = appLogFile(dir);
  const cur = await stat(file).catch(() => null);
  if (!cur) return { text: "", next: cursor ?? { ino: 0, offset: 0 }, lost: false };
  let source = file;
  let from = 0;
  let size = cur.size;
  let ino = cur.ino;
  let lost = false;
  if (cursor && cursor.ino === cur.ino) {
    from = Math.min(cursor.offset, cur.size);
  } else if (cursor && cursor.ino !== 0) {
    const prev = await stat(`${file}.1`).catch(() => null);
    if (prev && prev.ino === cursor.ino) {
      if (cursor.offset < prev.size) {
        source = `${file}.1`;
        from = cursor.offset;
        size = prev.size;
        ino = prev.ino;
      }
    } else {
      // Rotated at least twice since the cursor: what the oldest generations held is gone.
      lost = true;
      if (prev) {
        source = `${file}.1`;
        size = prev.size;
        ino = prev.ino;
      }
    }
  }
  let buf = await readRange(source, from, Math.min(size - from, maxBytes));
  if (!final && buf.length) {
    const nl = buf.lastIndexOf(0x0a);
    if (nl >= 0) buf = buf.subarray(0, nl + 1);
    else if (buf.length < maxBytes && source === file) buf = Buffer.alloc(0);
  }
  let next: TLogCursor = { ino, offset: from + buf.length };
  // The rotated file is read to its end: the next read starts at the current file's beginning.
  if (source !== file && next.offset >= size) next = { ino: cur.ino, offset: 0 };
  return { text: buf.toString("utf8"), next, lost };
}
