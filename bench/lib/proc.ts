import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";

/**
 * Process figures from /proc (Linux): CPU time (utime + stime, in ms) and
 * resident memory of a process, and the process tree below a pid (npm start
 * runs the server as a child of scripts/start.mjs).
 */
const TICKS_PER_SEC = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SEC;
}

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : NaN;
}

export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export function machine(pgVersion: string): Record<string, unknown> {
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? "unknown",
    ram_gb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    postgres: pgVersion,
    load_average_at_start: os.loadavg().map((v) => Math.round(v * 100) / 100),
  };
}
