import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * Hosted apps outlive the Capstan process that started them (by design: the
 * reconciler adopts them after a restart). An e2e run must not leave any
 * behind: kill the process group of every app whose launcher runs under the
 * e2e data directory.
 */
export default function globalTeardown(): void {
  const root = path.resolve(".data-e2e");
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (!cmdline.includes("capstan-deployment=dep_") || !cmdline.includes(root)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const pgid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      process.kill(-pgid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}
