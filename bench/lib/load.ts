import { createHash, createHmac } from "node:crypto";
import http from "node:http";

/**
 * A closed-loop load generator on node:http keep-alive connections:
 * `concurrency` loops, each sending its next request when the previous
 * answered, for `seconds`. Every latency is measured with performance.now
 * (microsecond resolution, unlike autocannon's whole milliseconds), so the
 * percentiles of two targets can be subtracted.
 */
export type TRequest = { method: string; path: string; headers: Record<string, string>; body?: Buffer };
export type TTarget = {
  name: string;
  host: string;
  port: number;
  /** Builds the next request (a fresh signature, key...). */
  next: (i: number) => TRequest;
  /** Called with each answer's headers (e.g. Capstan-Overhead-Ms). */
  onHeaders?: (h: http.IncomingHttpHeaders) => void;
};
export type TRun = {
  latencies: number[];
  errors: number;
  statuses: Record<string, number>;
  seconds: number;
  count: number;
};

export function send(agent: http.Agent, t: TTarget, i: number): Promise<{ ms: number; status: number; body: Buffer }> {
  const r = t.next(i);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers = r.body ? { ...r.headers, "content-length": String(r.body.length) } : r.headers;
    const req = http.request({ host: t.host, port: t.port, path: r.path, method: r.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        t.onHeaders?.(res.headers);
        resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(r.body);
  });
}

/** Runs `t` with `concurrency` loops for `seconds`; only 2xx answers count as successes. */
export async function run(t: TTarget, concurrency: number, seconds: number, warmup = 0): Promise<TRun> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  for (let i = 0; i < warmup; i++) await send(agent, t, i).catch(() => undefined);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let i = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        try {
          const r = await send(agent, t, i++);
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          if (r.status >= 200 && r.status < 300) latencies.push(r.ms);
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return { latencies, errors, statuses, seconds: elapsed, count: latencies.length };
}

export function pct(values: number[], p: number): number {
  if (!values.length) return NaN;
  const s = Float64Array.from(values).sort();
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export const round = (v: number, digits = 3) =>
  Number.isFinite(v) ? Math.round(v * 10 ** digits) / 10 ** digits : null;

/** `Server-Timing: a;dur=1.2, b;dur=0.3` -> { a: 1.2, b: 0.3 }. */
export function parseServerTiming(header: string | string[] | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of String(header ?? "").split(",")) {
    const [name, ...params] = part.trim().split(";");
    if (!name) continue;
    const dur = params.map((p) => p.trim()).find((p) => p.startsWith("dur="));
    out[name] = dur ? Number(dur.slice(4)) : NaN;
  }
  return out;
}

/** AWS Signature V4 headers for a path-style S3 request (what a client calling S3 directly does per request). */
export function signS3(opts: {
  method: string;
  host: string;
  path: string;
  body: Buffer;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}): Record<string, string> {
  const now = new Date()
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  const date = now.slice(0, 8);
  const payloadHash = createHash("sha256").update(opts.body).digest("hex");
  const headers: Record<string, string> = { host: opts.host, "x-amz-content-sha256": payloadHash, "x-amz-date": now };
  const signed = "host;x-amz-content-sha256;x-amz-date";
  const canonical = [
    opts.method,
    opts.path,
    "",
    `host:${opts.host}\nx-amz-content-sha256:${payloadHash}\nx-amz-date:${now}\n`,
    signed,
    payloadHash,
  ].join("\n");
  const scope = `${date}/${opts.region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", now, scope, createHash("sha256").update(canonical).digest("hex")].join("\n");
  const hmac = (k: Buffer | string, d: string) => createHmac("sha256", k).update(d).digest();
  const key = hmac(hmac(hmac(hmac(`AWS4${opts.secretAccessKey}`, date), opts.region), "s3"), "aws4_request");
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${opts.accessKeyId}/${scope}, SignedHeaders=${signed}, Signature=${hmac(key, toSign).toString("hex")}`;
  return headers;
}

export type TPaced = {
  /** Answers so far: 2xx latencies, non-2xx or failed requests, statuses. */
  latencies: number[];
  errors: number;
  statuses: Record<string, number>;
  /** Requests the schedule wanted but could not send because `maxInFlight` were outstanding (the server fell behind). */
  skipped: number;
  sent: number;
};

/**
 * An open-loop load at a fixed rate: every 10 ms it sends the requests the
 * schedule owes (rate x elapsed - sent), keeping at most `maxInFlight`
 * outstanding; what it cannot send is counted in `skipped`, not queued, so a
 * server that falls behind shows up as skipped requests rather than as an
 * ever-growing backlog. `onTick` runs every `tickSeconds` with the running
 * totals (sampling). Resolves after `seconds`, once the last answers are in.
 */
export async function paced(
  t: TTarget,
  ratePerSec: number,
  seconds: number,
  opts: {
    maxInFlight?: number;
    tickSeconds?: number;
    onTick?: (s: TPaced, elapsedSec: number) => void | Promise<void>;
  } = {},
): Promise<TPaced & { seconds: number }> {
  const maxInFlight = opts.maxInFlight ?? 64;
  const agent = new http.Agent({ keepAlive: true, maxSockets: maxInFlight });
  const s: TPaced = { latencies: [], errors: 0, statuses: {}, skipped: 0, sent: 0 };
  let inFlight = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  const pending = new Set<Promise<void>>();
  const fire = () => {
    const p = send(agent, t, s.sent++)
      .then(
        (r) => {
          s.statuses[r.status] = (s.statuses[r.status] ?? 0) + 1;
          if (r.status >= 200 && r.status < 300) s.latencies.push(r.ms);
          else s.errors++;
        },
        () => {
          s.statuses.network = (s.statuses.network ?? 0) + 1;
          s.errors++;
        },
      )
      .finally(() => {
        inFlight--;
        pending.delete(p);
      });
    inFlight++;
    pending.add(p);
  };
  let nextTick = started + (opts.tickSeconds ?? 5) * 1000;
  while (performance.now() < until) {
    const now = performance.now();
    const due = Math.floor(((now - started) / 1000) * ratePerSec) - (s.sent + s.skipped);
    for (let owed = Math.max(0, due); owed > 0; owed--) {
      if (inFlight >= maxInFlight) {
        s.skipped += owed;
        break;
      }
      fire();
    }
    if (opts.onTick && now >= nextTick) {
      nextTick += (opts.tickSeconds ?? 5) * 1000;
      await opts.onTick(s, (now - started) / 1000);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await Promise.all(pending);
  agent.destroy();
  return { ...s, seconds: (performance.now() - started) / 1000 };
}
