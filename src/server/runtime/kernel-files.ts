import { closeSync, openSync, readFileSync, readSync } from "node:fs";

/**
 * Kernel counter files (/proc/<pid>/stat and status, a cgroup's memory and
 * pids counters) read through descriptors kept open: a positioned read at
 * offset 0 makes the kernel format the file afresh, and skips the open, fstat
 * and close a path read pays each time (measured on this VM: 4.5 against 14 us
 * a read; an invocation reads about 17 of them, issue #34 item 3).
 *
 * An open /proc/<pid>/<file> stays bound to the process it was opened for:
 * once that process is gone its reads fail (ESRCH) instead of answering for a
 * later process that reuses the pid. A read that fails closes the descriptor,
 * and the next read of the path opens it again (a cgroup made anew under the
 * same name). At most MAX_OPEN stay open; the oldest is closed first.
 */
const MAX_OPEN = 256;
const open = new Map<string, number>();
const buf = Buffer.allocUnsafe(16 * 1024);

/** The file's text, or null when it cannot be read (gone, never there). */
export function readKernelFile(file: string): string | null {
  let fd = open.get(file);
  let fresh = false;
  if (fd === undefined) {
    try {
      fd = openSync(file, "r");
    } catch {
      return null;
    }
    fresh = true;
    if (open.size >= MAX_OPEN) closeKernelFile(open.keys().next().value!);
    open.set(file, fd);
  }
  try {
    const n = readSync(fd, buf, 0, buf.length, 0);
    // Larger than the buffer (none of the counters we read is): the whole file, the ordinary way.
    return n < buf.length ? buf.toString("latin1", 0, n) : readFileSync(file, "latin1");
  } catch (err) {
    closeKernelFile(file);
    // The process is gone (never reopened: the pid may be another process's by now). A cgroup's descriptor kept from
    // before (the cgroup was made anew, say) gets one fresh open; a new one failed for good.
    if (fresh || (err as NodeJS.ErrnoException).code === "ESRCH") return null;
    return readKernelFile(file);
  }
}

/** Closes the descriptor kept for `file`, if any. */
export function closeKernelFile(file: string): void {
  const fd = open.get(file);
  if (fd === undefined) return;
  open.delete(file);
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/** Closes every descriptor kept under `dir` (a cgroup being removed, a process tree that ended). */
export function closeKernelFilesUnder(dir: string): void {
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  for (const file of [...open.keys()]) if (file.startsWith(prefix)) closeKernelFile(file);
}

/** How many descriptors are kept open (tests). */
export const openKernelFiles = () => open.size;
