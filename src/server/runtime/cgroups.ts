import { existsSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { closeKernelFilesUnder, readKernelFile } from "./kernel-files";
import type { TLimits } from "./limits";

/**
 * Per-deployment cgroups, nested under Capstan's own cgroup in each
 * controller (never beside it: whatever limits Capstan's host gives Capstan
 * still bounds its apps). cgroup v2 where the unified hierarchy has memory,
 * pids and cpu and our subtree can enable them; else cgroup v1 where the
 * memory, pids and cpu hierarchies are mounted and writable (a hybrid host
 * such as ours); else null and the limits fall back to rlimits and nice.
 * The directory of a deployment is `<own cgroup>/capstan/<dep>`.
 */
export type TCgroupHost = { version: "v1" | "v2"; bases: { memory: string; pids: string; cpu: string } };

const ROOT = "/sys/fs/cgroup";

async function ownCgroups(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const text = await readFile("/proc/self/cgroup", "utf8").catch(() => "");
  for (const line of text.split("\n")) {
    const [, controllers, p] = line.split(":");
    if (controllers === undefined || p === undefined) continue;
    for (const c of controllers === "" ? [""] : controllers.split(",")) out.set(c, p);
  }
  return out;
}

async function writable(dir: string): Promise<boolean> {
  const probe = path.join(dir, "capstan", `probe-${process.pid}`);
  try {
    await mkdir(probe, { recursive: true });
    await rmdir(probe);
    return true;
  } catch {
    return false;
  }
}

let probed: Promise<TCgroupHost | null> | null = null;
export function probeCgroups(): Promise<TCgroupHost | null> {
  return (probed ??= doProbe());
}

async function doProbe(): Promise<TCgroupHost | null> {
  const own = await ownCgroups();
  if (existsSync(path.join(ROOT, "cgroup.controllers"))) {
    const base = path.join(ROOT, own.get("") ?? "/");
    const controllers = (await readFile(path.join(base, "cgroup.controllers"), "utf8").catch(() => "")).split(/\s+/);
    if (!["memory", "pids", "cpu"].every((c) => controllers.includes(c))) return null;
    const parent = path.join(base, "capstan");
    try {
      await mkdir(parent, { recursive: true });
      await writeFile(path.join(parent, "cgroup.subtree_control"), "+memory +pids +cpu");
    } catch {
      return null;
    }
    return (await writable(base)) ? { version: "v2", bases: { memory: base, pids: base, cpu: base } } : null;
  }
  const bases = {
    memory: path.join(ROOT, "memory", own.get("memory") ?? "/"),
    pids: path.join(ROOT, "pids", own.get("pids") ?? "/"),
    cpu: path.join(ROOT, "cpu", own.get("cpu") ?? own.get("cpu,cpuacct") ?? "/"),
  };
  for (const b of Object.values(bases)) if (!existsSync(b) || !(await writable(b))) return null;
  return { version: "v1", bases };
}

export function resetCgroupProbe(): void {
  probed = null;
}

/** The cgroup path of a deployment relative to Capstan's own (what runsc takes as a relative cgroupsPath). */
export const cgroupRel = (deploymentId: string) => `capstan/${deploymentId}`;

function dirs(host: TCgroupHost, deploymentId: string): string[] {
  const rel = cgroupRel(deploymentId);
  return [...new Set([host.bases.memory, host.bases.pids, host.bases.cpu])].map((b) => path.join(b, rel));
}

/** Creates the deployment's cgroups and writes its limits. The host pids cap leaves room for the sandbox's own threads. */
export async function createCgroup(
  host: TCgroupHost,
  deploymentId: string,
  limits: TLimits,
  pidsMax: number,
): Promise<void> {
  for (const d of dirs(host, deploymentId)) await mkdir(d, { recursive: true });
  const rel = cgroupRel(deploymentId);
  const bytes = String(limits.memory_mb * 1024 * 1024);
  if (host.version === "v2") {
    const d = path.join(host.bases.memory, rel);
    await writeFile(path.join(d, "memory.max"), bytes);
    await writeFile(path.join(d, "memory.swap.max"), "0").catch(() => undefined);
    await writeFile(path.join(d, "pids.max"), String(pidsMax));
    await writeFile(path.join(d, "cpu.weight"), String(Math.max(1, Math.min(10_000, limits.cpu_weight))));
  } else {
    await writeFile(path.join(host.bases.memory, rel, "memory.limit_in_bytes"), bytes);
    await writeFile(path.join(host.bases.memory, rel, "memory.memsw.limit_in_bytes"), bytes).catch(() => undefined);
    await writeFile(path.join(host.bases.pids, rel, "pids.max"), String(pidsMax));
    await writeFile(
      path.join(host.bases.cpu, rel, "cpu.shares"),
      String(Math.max(2, Math.round((limits.cpu_weight * 1024) / 100))),
    );
  }
}

/** Moves processes into the deployment's cgroups (their later children are born there). */
export async function placeInCgroup(host: TCgroupHost, deploymentId: string, pids: number[]): Promise<void> {
  for (const d of dirs(host, deploymentId)) {
    for (const pid of pids) await writeFile(path.join(d, "cgroup.procs"), String(pid)).catch(() => undefined);
  }
}

const counter = (text: string, key: string) => Number(new RegExp(`^${key} (\\d+)$`, "m").exec(text)?.[1] ?? 0);

/** The limit hits the kernel counted: OOM kills and refused forks. */
export async function cgroupHits(
  host: TCgroupHost,
  deploymentId: string,
): Promise<{ oomKills: number; pidsRefused: number }> {
  const rel = cgroupRel(deploymentId);
  const mem = kernelFile(
    path.join(host.bases.memory, rel, host.version === "v2" ? "memory.events" : "memory.oom_control"),
  );
  const pids = kernelFile(path.join(host.bases.pids, rel, "pids.events"));
  return { oomKills: counter(mem, "oom_kill"), pidsRefused: counter(pids, "max") };
}

/** Peak memory of the cgroup (bytes), or null. */
export async function cgroupMemoryPeak(host: TCgroupHost, deploymentId: string): Promise<number | null> {
  const rel = cgroupRel(deploymentId);
  const file = host.version === "v2" ? "memory.peak" : "memory.max_usage_in_bytes";
  const v = Number(kernelFile(path.join(host.bases.memory, rel, file)).trim());
  return Number.isFinite(v) && v > 0 ? v : null;
}

/**
 * A cgroup file's text ("" when it is gone). Read synchronously on purpose: these are the kernel's counters in
 * memory, never a disk read, and every invocation reads them twice; through the thread pool each read took four
 * hops queued behind the journal's and the evidence's fsyncs. The descriptor stays open between readings.
 */
function kernelFile(file: string): string {
  return readKernelFile(file) ?? "";
}

/** Removes the deployment's cgroups once their processes are gone (a few tries: the kernel reaps asynchronously). */
export async function removeCgroup(host: TCgroupHost, deploymentId: string): Promise<void> {
  for (const d of dirs(host, deploymentId)) {
    closeKernelFilesUnder(d);
    for (let i = 0; i < 20 && existsSync(d); i++) {
      try {
        await rmdir(d);
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
}
