import type { Deployment, Invocation, Session } from "@/generated/prisma/client";
import os from "node:os";
import { blobStore, isBlobStoreOutage } from "@/server/platform/blob-store";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { signToken } from "@/server/domain/signing-keys/jwt.service";
import { runner, type TLimitHit, type TRuntimeState } from "@/server/runtime";
import type { TUsageReading } from "@/server/runtime/runner";
import type { TRunnerOps } from "@/server/runtime/remote-runner";
import { runnerFor, upstreamFor } from "@/server/domain/runners/runner-hosts.service";
import { requestOnce } from "@/server/runtime/surface-proxy";
import { putEvidence, type TEvidenceGrant } from "@/server/domain/source/evidence.service";
import type { TExecution, TInvocationInput } from "./sessions.contract";
import type { InvocationTiming } from "./invocation-timing";

/**
 * Managed execution of an admitted invocation: the request (method, path,
 * query and body from their evidence) goes to the deployment's ingress
 * socket with a deadline; the whole response body becomes evidence in the
 * blob store, and so do the app's log lines written meanwhile. Mapping:
 *   app answered 1xx-4xx         -> completed, failure null
 *   app answered 5xx             -> failed, product_error
 *   no process / connection fails -> failed, runtime_error
 *   deadline passed               -> timed_out, timeout
 *   blob store down               -> failed, runtime_error: before the call (the
 *     request's evidence cannot be read: the app is not called) or after it (the
 *     response or log cannot be stored: http_status kept, body_evidence null), so
 *     the invocation always ends recorded, never left admitted without an execution
 *   the app died or hung on a limit  -> failed, isolation_violation (the
 *     limits it ran into, in words: OOM kill, refused forks, full disk)
 *   the app answered, but ran into a limit meanwhile (a child process
 *     OOM-killed, forks refused, its disk filled: a counter that grew
 *     during the call) -> failed, isolation_violation in words, with the
 *     app's http_status and body kept; the app goes on serving. Concurrent
 *     calls to one deployment share the counters, so each of them is told.
 * (`cancelled` is not produced by the local runner.)
 * Usage: duration_ms is wall time; cpu_ms the CPU time the deployment's
 * processes used during the execution (concurrent executions on one
 * deployment share it, so it is capped at duration x cores); memory_peak_bytes
 * the processes' high-water mark. Both null when the runner cannot measure.
 * The app receives a runner-audience token (claims exe, inv, dep) in
 * `Capstan-Runner-Token`, for POST /v1/runner/capability-invocations.
 * The evidence blobs are in the store when this returns; the workspace's
 * grants of them go in `grants`, written by the statement that records the
 * execution (one commit: an execution is never recorded without its grants).
 */
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const MAX_LOG_BYTES = 256 * 1024;
const CORES = Math.max(1, os.availableParallelism());

/**
 * What an execution needs before the app is called: its id, the request's
 * body and query from their evidence, the runner token, and the readings the
 * call is measured against (log offset, CPU, limit counters). Independent of
 * the invocation's row, so createInvocation starts it while that row's
 * statement is in flight (the two overlap instead of adding up); the app is
 * called only once both are done. `failed` when the app cannot be called
 * (no process, the blob store down).
 */
export type TPrepared =
  | {
      kind: "ready";
      executionId: string;
      timeoutMs: number;
      state: TRuntimeState;
      body: Buffer | null;
      bodyType: string | undefined;
      query: string;
      runner: TRunnerOps;
      upstream: Awaited<ReturnType<typeof upstreamFor>>;
      token: string;
      logFrom: number;
      before: TUsageReading | null;
      hitsBefore: TLimitHit[];
    }
  | { kind: "failed"; executionId: string; message: string };

export async function prepareExecution(
  invocationId: string,
  session: Session,
  deployment: Deployment,
  input: TInvocationInput,
): Promise<TPrepared> {
  const executionId = newId("exe");
  const timeoutMs = env().CAPSTAN_INVOCATION_TIMEOUT_MS;
  const state = deployment.runtime as TRuntimeState | null;
  if (!state) return { kind: "failed", executionId, message: "The deployment has no running process." };
  let body: Buffer | null;
  let query: string;
  try {
    body = input.body_evidence ? await blobStore().get(input.body_evidence.sha256) : null;
    query = input.query_evidence
      ? ((await blobStore().get(input.query_evidence.sha256))?.toString("utf8").replace(/^\?/, "") ?? "")
      : "";
  } catch (err) {
    if (!isBlobStoreOutage(err)) throw err;
    const message = `The request's body or query could not be read, so the app was not called: ${(err as Error).message}`;
    return { kind: "failed", executionId, message };
  }
  // The body goes with the content type it was uploaded with.
  const bodyType = input.body_evidence
    ? (
        await scopedDb(session.workspaceId).workspaceBlob.findUnique({
          where: { workspaceId_sha256: { workspaceId: session.workspaceId, sha256: input.body_evidence.sha256 } },
          select: { contentType: true },
        })
      )?.contentType
    : undefined;
  // The runner host the deployment was placed on: this process's runner, or another host's through its gateway.
  const r = await runnerFor(deployment.runnerHost);
  const upstream = await upstreamFor(deployment);
  // Independent, so together: the runner token, and (best effort: a remote host may not answer) logs and usage before.
  const [{ token }, logFrom, before, hitsBefore] = await Promise.all([
    signToken({
      audience: "runner",
      subject: executionId,
      jti: newId("tok"),
      ttlSeconds: Math.ceil(timeoutMs / 1000) + 60,
      claims: {
        ws: session.workspaceId,
        prod: session.productId,
        exe: executionId,
        inv: invocationId,
        dep: deployment.id,
        env: deployment.environmentType,
      },
    }),
    r.logSize(deployment.id).catch(() => 0),
    // CPU only: the peak is read after the call.
    r.usage(state, { memory: false }).catch(() => null),
    hitsOf(deployment, state),
  ]);
  return {
    kind: "ready",
    executionId,
    timeoutMs,
    state,
    body,
    bodyType,
    query,
    runner: r,
    upstream,
    token,
    logFrom,
    before,
    hitsBefore,
  };
}

/** Runs the prepared execution (prepareExecution, started by the caller or here) against the app. */
export async function executeInvocation(
  inv: Invocation,
  session: Session,
  deployment: Deployment,
  input: TInvocationInput,
  grants: TEvidenceGrant[],
  timing?: InvocationTiming,
  preparing?: Promise<TPrepared>,
): Promise<TExecution> {
  const p = await (preparing ?? prepareExecution(inv.id, session, deployment, input));
  const startedAt = new Date();
  const base = {
    execution_id: p.executionId,
    invocation_id: inv.id,
    session_id: session.id,
    workspace_id: session.workspaceId,
    product_id: session.productId,
    deployment_id: deployment.id,
    execution_mode: "managed" as const,
  };
  if (p.kind === "failed") {
    return {
      ...base,
      status: "failed",
      failure: { code: "runtime_error", message: p.message },
      result: { http_status: null, body_evidence: null },
      log_evidence: null,
      usage: { duration_ms: 0, cpu_ms: null, memory_peak_bytes: null },
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
    };
  }
  const outage = (err: unknown, what: string) => {
    if (!isBlobStoreOutage(err)) throw err;
    return `${what}: ${(err as Error).message}`;
  };
  const { state, body, bodyType, query, upstream, token, logFrom, before, hitsBefore, timeoutMs } = p;
  const r = p.runner;
  const executionId = p.executionId;
  timing?.mark("execution");
  const t0 = performance.now();
  const answer = !upstream
    ? {
        ok: false as const,
        kind: "unreachable" as const,
        message: `The runner host ${deployment.runnerHost} is not live`,
      }
    : await requestOnce(upstream, {
        method: input.method,
        path: input.path + (query ? `?${query}` : ""),
        timeoutMs,
        maxBodyBytes: MAX_RESPONSE_BYTES,
        body,
        headers: {
          "capstan-runner-token": token,
          "capstan-invocation-id": inv.id,
          "capstan-execution-id": executionId,
          ...(body ? { "content-length": String(body.length), ...(bodyType ? { "content-type": bodyType } : {}) } : {}),
        },
      });
  const durationMs = Math.round(performance.now() - t0);
  timing?.mark("app");
  // Together, off the answer's path: usage after, the app's log meanwhile, and the limit counters after the call.
  const [after, logText, hitsAfter] = await Promise.all([
    r.usage(state).catch(() => null),
    r.logSince(deployment.id, logFrom, MAX_LOG_BYTES).catch(() => ""),
    hitsOf(deployment, state),
  ]);
  const cpuMs = before && after ? Math.min(Math.max(0, after.cpuMs - before.cpuMs), durationMs * CORES) : null;
  const finishedAt = new Date();
  let lost: string | null = null;
  const keep = async (bytes: Buffer, contentType: string) => {
    try {
      return { evidence: await putEvidence(bytes, contentType), contentType };
    } catch (err) {
      lost = outage(err, "The app answered, but its response or log could not be stored");
      return null;
    }
  };
  // The log and the answer's body go to the store together (two fsyncs at once, not one after the other);
  // their grants are listed log first, body last, whichever put finished first (same bytes: the body's type wins).
  const kept = await Promise.all([
    logText ? keep(Buffer.from(logText, "utf8"), "text/plain; charset=utf-8") : null,
    answer.ok ? keep(answer.body, answer.contentType ?? "application/octet-stream") : null,
  ]);
  for (const k of kept) if (k) grants.push({ sha256: k.evidence.sha256, contentType: k.contentType });
  const logEvidence = kept[0]?.evidence ?? null;
  const bodyEvidence = kept[1]?.evidence ?? null;
  const common = {
    ...base,
    log_evidence: logEvidence,
    usage: { duration_ms: durationMs, cpu_ms: cpuMs, memory_peak_bytes: after?.memoryPeakBytes ?? null },
    started_at: startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
  };
  if (!answer.ok) {
    // The app died or hung on one of its limits: the request ends as an isolation violation, in words.
    // Read again now (not hitsAfter): the kernel may count the kill a moment after the connection dropped.
    let hits = newHits(await hitsOf(deployment, state), hitsBefore, true);
    // The connection drops as the kernel kills the app; its launcher (under gVisor, runsc tearing the sandbox down)
    // exits a moment later: while only a "child" kill is seen, ask again for up to 2 s.
    for (let i = 0; i < 8 && hits.some((h) => h.limit === "memory" && !h.fatal); i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      hits = newHits(await hitsOf(deployment, state), hitsBefore, true);
    }
    if (hits.length) {
      return {
        ...common,
        status: "failed",
        failure: {
          code: "isolation_violation",
          message: hits
            .map((h) => h.message)
            .join(" ")
            .slice(0, 2048),
        },
        result: { http_status: null, body_evidence: null },
      };
    }
    return {
      ...common,
      status: answer.kind === "timeout" ? "timed_out" : "failed",
      failure: {
        code: answer.kind === "timeout" ? "timeout" : "runtime_error",
        message: answer.message.slice(0, 2048),
      },
      result: { http_status: null, body_evidence: null },
    };
  }
  if (lost)
    return {
      ...common,
      status: "failed",
      failure: { code: "runtime_error", message: String(lost).slice(0, 2048) },
      result: { http_status: answer.status, body_evidence: null },
    };
  // A limit met during the call while the app kept serving: the call fails in words, the answer is kept.
  const met = newHits(hitsAfter, hitsBefore, false);
  if (met.length)
    return {
      ...common,
      status: "failed",
      failure: {
        code: "isolation_violation",
        message: `${met.map((h) => h.message).join(" ")} The app answered ${answer.status}.`.slice(0, 2048),
      },
      result: { http_status: answer.status, body_evidence: bodyEvidence },
    };
  if (answer.status >= 500) {
    return {
      ...common,
      status: "failed",
      failure: { code: "product_error", message: `The app answered ${answer.status}.` },
      result: { http_status: answer.status, body_evidence: bodyEvidence },
    };
  }
  return {
    ...common,
    status: "completed",
    failure: null,
    result: { http_status: answer.status, body_evidence: bodyEvidence },
  };
}

/** The limits the deployment ran into so far, where this process runs its runner (else none known). */
function hitsOf(deployment: Deployment, state: TRuntimeState) {
  if (deployment.runnerHost !== runner().hostId) return Promise.resolve([]);
  return runner()
    .limitHits(deployment.id, state)
    .catch(() => []);
}

/** The hits that grew since `before` (and, with `fatal`, any that ended the app). */
const newHits = (after: TLimitHit[], before: TLimitHit[], fatal: boolean) =>
  after.filter((h) => (fatal && h.fatal) || h.count > (before.find((b) => b.limit === h.limit)?.count ?? 0));
