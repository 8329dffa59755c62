import { blobStore } from "@/server/platform/blob-store";
import { env } from "@/server/platform/env";
import type { TBuildStep } from "@/server/runtime";
import { runnerFor } from "@/server/domain/runners/runner-hosts.service";
import { getOwnedDeployment } from "./deployments.service";
import { readRunLog, runLogChunks, SCAN_LIMIT_BYTES } from "./run-log.service";

/**
 * GET .../deployments/{dep}/logs and the download (docs/decisions.md
 * "Deployment logs"): the build log (evidence once the build ended, the
 * runner's file while it runs), the steps with their durations, and the run
 * log across its kept segments and the runner's unflushed part. Every line
 * starts with its ISO time. `since` (a byte offset, the previous answer's
 * `run_log_end`) gives only what is new: a follower polls with it. `q`
 * keeps the lines that contain it (case-insensitive), over the whole kept
 * log (up to 32 MiB), and the build log.
 */
export type TLogsQuery = { tail_bytes: number; since?: number; q?: string };

const live = (status: string) => status === "active" || status === "applying";

function matching(text: string, q: string | undefined): string {
  if (!q) return text;
  const needle = q.toLowerCase();
  const lines = text.split("\n");
  return lines
    .filter((l, i) => (i < lines.length - 1 || l) && l.toLowerCase().includes(needle))
    .map((l) => `${l}\n`)
    .join("");
}

function lastBytes(text: string, max: number): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= max) return text;
  const cut = buf.subarray(buf.length - max).toString("utf8");
  const nl = cut.indexOf("\n");
  return nl >= 0 ? cut.slice(nl + 1) : cut;
}

export async function deploymentLogs(workspaceId: string, id: string, q: TLogsQuery) {
  const dep = await getOwnedDeployment(workspaceId, id);
  const ev = dep.evidence as { build_log?: { sha256: string } | null; run_log?: { sha256: string } | null };
  const fromBlob = async (e: { sha256: string } | null | undefined) =>
    e ? ((await blobStore().get(e.sha256))?.toString("utf8") ?? "") : "";
  const isLive = live(dep.status);
  // Live logs are on the deployment's runner host (this process's runner, or another host's gateway; best effort).
  const host = isLive ? await runnerFor(dep.runnerHost) : null;
  const build = ev.build_log
    ? await fromBlob(ev.build_log)
    : host
      ? await host.buildLog(id, 1024 * 1024).catch(() => "")
      : "";
  const view = await readRunLog(
    dep,
    host,
    q.q ? { from: 0, tailBytes: SCAN_LIMIT_BYTES } : { from: q.since, tailBytes: q.tail_bytes },
  );
  let run = view.text;
  // Deployments that ended before run logs were kept in segments kept a tail as evidence.
  if (!view.segments && !isLive && !run && ev.run_log) run = await fromBlob(ev.run_log);
  if (q.q) run = lastBytes(matching(run, q.q), q.tail_bytes);
  return {
    deployment_id: id,
    build_log: matching(build, q.q),
    run_log: run,
    live: isLive,
    build_steps: (dep.buildSteps ?? []) as TBuildStep[],
    run_log_start: q.q ? null : view.start,
    run_log_end: view.end,
    run_log_expired_before: view.expired_before,
    retention_days: env().CAPSTAN_LOG_RETENTION_DAYS,
  };
}

/** The whole log as text: a header, the build log, then every kept byte of the run log. */
export async function deploymentLogDownload(
  workspaceId: string,
  id: string,
): Promise<{ filename: string; chunks: AsyncGenerator<string> }> {
  const dep = await getOwnedDeployment(workspaceId, id);
  const ev = dep.evidence as { build_log?: { sha256: string } | null; run_log?: { sha256: string } | null };
  const host = live(dep.status) ? await runnerFor(dep.runnerHost) : null;
  const steps = (dep.buildSteps ?? []) as TBuildStep[];
  async function* chunks(): AsyncGenerator<string> {
    yield `# deployment ${dep.id} (${dep.environmentType}, ${dep.status}); run-log segments are kept ${env().CAPSTAN_LOG_RETENTION_DAYS} days\n`;
    for (const s of steps)
      yield `# step ${s.name}: ${s.status}${s.duration_ms !== null ? ` in ${s.duration_ms} ms` : ""}${s.command ? ` (${s.command})` : ""}\n`;
    yield "# --- build log ---\n";
    const build = ev.build_log
      ? ((await blobStore().get(ev.build_log.sha256))?.toString("utf8") ?? "")
      : host
        ? await host.buildLog(dep.id, 1024 * 1024).catch(() => "")
        : "";
    if (build) yield build.endsWith("\n") ? build : `${build}\n`;
    yield "# --- run log ---\n";
    let any = false;
    for await (const c of runLogChunks(dep, host)) {
      any = true;
      yield c;
    }
    if (!any && ev.run_log) yield (await blobStore().get(ev.run_log.sha256))?.toString("utf8") ?? "";
  }
  return { filename: `${dep.id}.log`, chunks: chunks() };
}
