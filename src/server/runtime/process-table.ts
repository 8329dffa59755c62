import { readdirSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { readKernelFile } from "./kernel-files";

/**
 * What runs on this host, read from /proc. A process is identified by its
 * pid AND its start time (field 22 of /proc/<pid>/stat, in clock ticks since
 * boot), so a recycled pid is never mistaken for the process we started.
 */
export async function processStartTime(pid: number): Promise<string | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (rest[0] === "Z" || rest[0] === "X") return null; // a zombie has exited
    return rest[19] ?? null;
  } catch {
    return null;
  }
}

export async function isAlive(pid: number, startTime: string): Promise<boolean> {
  return (await processStartTime(pid)) === startTime;
}

/** Processes whose command line contains `marker`, with their process group. */
export async function findProcesses(marker: string): Promise<Array<{ pid: number; pgid: number; cmdline: string }>> {
  const out: Array<{ pid: number; pgid: number; cmdline: string }> = [];
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return out;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = (await readFile(`/proc/${name}/cmdline`, "utf8")).replace(/\0/g, " ");
      if (!cmdline.includes(marker)) continue;
      const stat = await readFile(`/proc/${name}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.push({ pid: Number(name), pgid: Number(rest[2]), cmdline });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

let ownGroup: number | null = null;

/** This process's own process group (field 5 of /proc/self/stat). */
export function ownProcessGroup(): number {
  if (ownGroup === null) {
    const stat = readFileSync("/proc/self/stat", "utf8");
    ownGroup = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  }
  return ownGroup;
}

/**
 * Signals a whole process group; false when it no longer exists, or when the
 * group is our own (or init's): a child we ran without `detached` (a `runsc
 * list`, a probe) shares our group, and signalling that group would take down
 * Capstan and whatever started it.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (!(pgid > 1) || pgid === ownProcessGroup()) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the group, then SIGKILL after `graceMs` if anything of it is left. */
export async function killGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    if (!signalGroup(pgid, 0)) return;
  }
  signalGroup(pgid, "SIGKILL");
  // Let the kernel reap it before the caller removes its directory.
  for (let i = 0; i < 40 && signalGroup(pgid, 0); i++) await new Promise((r) => setTimeout(r, 25));
}

/** Linux reports CPU times in clock ticks of 1/100 s (USER_HZ) on every architecture we run on. */
const TICK_MS = 10;

/**
 * CPU time (user + system, ms) and the sum of the memory high-water marks
 * (VmHWM) of the live processes under `rootPid` (itself and its
 * descendants, via /proc/<pid>/task/<tid>/children), read synchronously:
 * /proc files are generated in memory, and a dozen synchronous reads cost
 * far less than a trip through the thread pool each. Falls back to a scan
 * of /proc by process group where the kernel has no children files. Null
 * when nothing of it is alive. The tree itself (a children file per thread of
 * every process: most of the reads) is reused for TREE_TTL_MS, so the two
 * readings around an invocation, and concurrent invocations of one
 * deployment, walk it once and read the same processes (issue #34 item 3).
 * `memory: false` reads CPU only (memoryPeakBytes null): the reading before
 * an invocation, and one whose peak comes from the cgroup.
 */
export function groupUsage(
  rootPid: number,
  pgid = rootPid,
  opts: { memory?: boolean } = {},
): { cpuMs: number; memoryPeakBytes: number | null } | null {
  const pids = processTree(rootPid, pgid);
  const memory = opts.memory !== false;
  let cpuTicks = 0;
  let hwmKb = 0;
  let found = false;
  for (const pid of pids) {
    const stat = readKernelFile(`/proc/${pid}/stat`);
    if (stat === null) continue; // ended while we looked
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    cpuTicks += Number(rest[11]) + Number(rest[12]);
    // /proc/<pid>/status is the costly file (the kernel formats ~55 lines): read only when the peak is wanted.
    const m = memory ? /^VmHWM:\s+(\d+) kB/m.exec(readKernelFile(`/proc/${pid}/status`) ?? "") : null;
    if (m) hwmKb += Number(m[1]);
    found = true;
  }
  return found ? { cpuMs: cpuTicks * TICK_MS, memoryPeakBytes: memory ? hwmKb * 1024 : null } : null;
}

export const TREE_TTL_MS = 250;
const trees = new Map<number, { at: number; pids: number[] }>();

function processTree(rootPid: number, pgid: number): number[] {
  const hit = trees.get(rootPid);
  if (hit && Date.now() - hit.at < TREE_TTL_MS) return hit.pids;
  const pids = descendants(rootPid) ?? scanGroup(pgid);
  if (trees.size > 1000) trees.clear();
  trees.set(rootPid, { at: Date.now(), pids });
  return pids;
}

/** The pid and all its descendants, or null when /proc has no children files. */
function descendants(root: number): number[] | null {
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // gone
    }
    out.push(pid);
    for (const tid of tids) {
      let children: string;
      try {
        children = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT" && tid === String(pid) && out.length === 1) return null;
        continue;
      }
      for (const c of children.trim().split(/\s+/)) if (c) queue.push(Number(c));
    }
  }
  return out;
}

function scanGroup(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pgid) out.push(Number(name));
    } catch {
      // ended
    }
  }
  return out;
}
