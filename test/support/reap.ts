import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ownProcessGroup } from "../../src/server/runtime/process-table";

/**
 * Hosted apps outlive the Capstan process that started them (by design: the
 * reconciler adopts them after a restart), and as root the runner mounts a
 * size-capped tmpfs on each app's directory. A test run must leave neither
 * behind, or its data directory cannot be removed (EBUSY) and the apps keep
 * the machine busy: kill the process group of every app launcher and every
 * gVisor process (runsc, its gofer and sandbox, each a group of its own) whose
 * command line names `root` (never our own group: a runsc call Capstan made
 * without `detached` is in it), then unmount what is mounted below `root`,
 * deepest first and lazily, so a mount still busy for a moment cannot stay.
 */
export function reapUnder(root: string): void {
  const dir = path.resolve(root);
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (!cmdline.includes(dir + path.sep)) continue;
      if (!cmdline.includes("capstan-deployment=dep_") && !/\brunsc/.test(cmdline)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const pgid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      // A runsc call made without `detached` (a probe, `runsc list`) is in the test runner's own
      // group, which is also CI's: kill that process alone, never the group.
      if (pgid > 1 && pgid !== ownProcessGroup()) process.kill(-pgid, "SIGKILL");
      else process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  let mounts: string[] = [];
  try {
    mounts = readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .map((line) => line.split(" ")[1] ?? "")
      // /proc/mounts escapes spaces and the like as octal: \040.
      .map((m) => m.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
      .filter((m) => m.startsWith(dir + path.sep));
  } catch {
    // no /proc/self/mounts: nothing mounted either
  }
  for (const m of mounts.sort((a, b) => b.length - a.length))
    spawnSync("/usr/bin/umount", ["-l", m], { stdio: "ignore" });
}
