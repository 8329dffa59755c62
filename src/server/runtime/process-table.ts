import { readdir, readFile } from "node:fs/promises";

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

/** Signals a whole process group; false when it no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
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
 * (VmHWM) of every live process in a process group, read from /proc.
 * Null when the group has no live process.
 */
export async function groupUsage(pgid: number): Promise<{ cpuMs: number; memoryPeakBytes: number } | null> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return null;
  }
  let cpuTicks = 0;
  let hwmKb = 0;
  let found = false;
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(rest[2]) !== pgid) continue;
      found = true;
      cpuTicks += Number(rest[11]) + Number(rest[12]);
      const status = await readFile(`/proc/${name}/status`, "utf8");
      const m = /^VmHWM:\s+(\d+) kB/m.exec(status);
      if (m) hwmKb += Number(m[1]);
    } catch {
      // ended while we looked
    }
  }
  return found ? { cpuMs: cpuTicks * TICK_MS, memoryPeakBytes: hwmKb * 1024 } : null;
}
