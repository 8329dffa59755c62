import { existsSync } from "node:fs";
import http from "node:http";

/** One GET over the deployment's ingress socket. */
export function getOverSocket(
  socketPath: string,
  path: string,
  timeoutMs: number,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath,
        path,
        method: "GET",
        headers: { host: "localhost", "user-agent": "capstan-health" },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  });
}

export type THealthAttempt = { at: string; status: number | null; latency_ms: number; error: string | null };

/**
 * Polls `path` about every second until it answers 2xx/3xx or `deadlineMs`
 * passes; each attempt has its own short timeout. `alive` stops early when
 * the process has exited. Every attempt is kept (evidence).
 *
 * `listenFloorMs` (gVisor, where a start is slow) is the least time the app gets to begin answering at all: until its
 * first HTTP answer the deadline is the longer of the two; once it answers (any status), it has `deadlineMs` from then
 * (and never less than from the start) to answer 2xx/3xx, so an app that answers 404 or 500 fails as soon as it would
 * on the host kernel, counted from when it listened.
 */
export async function waitHealthy(opts: {
  socketPath: string;
  path: string;
  deadlineMs: number;
  alive: () => Promise<boolean>;
  intervalMs?: number;
  /** The sandbox's own start (until the launcher's ingress socket exists) is not the app's: at most this long, then the deadline starts. */
  sandboxStartMs?: number;
  listenFloorMs?: number;
}): Promise<{ ok: boolean; attempts: THealthAttempt[]; exited: boolean; latencyMs: number; waitedMs: number }> {
  const interval = opts.intervalMs ?? 1_000;
  const bootUntil = Date.now() + (opts.sandboxStartMs ?? 0);
  while (Date.now() < bootUntil && !existsSync(opts.socketPath)) {
    if (!(await opts.alive())) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const started = Date.now();
  let until = started + Math.max(opts.deadlineMs, opts.listenFloorMs ?? 0);
  let answered = false;
  const attempts: THealthAttempt[] = [];
  const end = (ok: boolean, exited: boolean, latencyMs: number) => ({
    ok,
    attempts,
    exited,
    latencyMs,
    waitedMs: Date.now() - started,
  });
  for (;;) {
    const at = new Date().toISOString();
    const perAttempt = Math.max(100, Math.min(2_000, until - Date.now()));
    try {
      const r = await getOverSocket(opts.socketPath, opts.path, perAttempt);
      attempts.push({ at, status: r.status, latency_ms: Math.round(r.ms), error: null });
      if (r.status >= 200 && r.status < 400) return end(true, false, Math.round(r.ms));
      if (!answered) {
        answered = true;
        until = Math.min(until, Date.now() + opts.deadlineMs);
      }
    } catch (err) {
      attempts.push({ at, status: null, latency_ms: 0, error: String((err as Error).message).slice(0, 200) });
    }
    if (!(await opts.alive())) return end(false, true, 0);
    // Quick first retries (most apps listen within a few hundred ms), then about every second.
    const wait = Math.min(Math.min(interval, 100 * 2 ** (attempts.length - 1)), until - Date.now());
    if (wait <= 0) return end(false, false, 0);
    await new Promise((r) => setTimeout(r, wait));
  }
}
