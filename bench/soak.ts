/**
 * `npm run bench` (last part), issue #16 item 8: the soak. The production
 * build under `npm start` (bench/lib/setup.ts: fresh PostgreSQL database,
 * workers in-process, a metrics token set) is driven at ~70 % of its maximum
 * ai.generate throughput for SOAK_SECONDS (default 600), open loop (a fixed
 * rate, not "as fast as it answers", so a server that slows down shows it as
 * latency and skipped requests instead of quietly doing less).
 *
 * - Max throughput: SOAK_MAX_RPS if set, else a probe of SOAK_PROBE_SECONDS
 *   (default 10) at concurrency 10 against this same server, after warm-up.
 *   SOAK_LOAD (default 0.7) is the fraction of it that is run.
 * - Every SOAK_SAMPLE_SECONDS (default 5): the server process's RSS and CPU
 *   (/proc), answers and errors so far, the outbox depth and lag
 *   (capstan_outbox_depth, capstan_outbox_lag_seconds = age of the oldest
 *   undispatched event, from GET /metrics with the token). A webhook
 *   subscription (every type) to a loopback receiver makes the workers
 *   deliver every event, as with subscribers (SOAK_WEBHOOK=0: none).
 * - After SOAK_WARMUP_SECONDS (default 20 % of the run, at most 120 s), RSS
 *   first/last/max and its slope (least squares, MB per minute); outbox lag
 *   max/p99 over the samples; the dispatch lag histogram's p99 bucket
 *   (capstan_outbox_dispatch_lag_seconds, written -> dispatched) over the run;
 *   error lines in the server's log.
 * Writes bench/results/soak.json with the machine description. Bridge tokens
 * live 10 minutes: a fresh one is taken every 5.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { paced, pct, round, run, type TTarget } from "./lib/load";
import { histogramQuantile, scrapeMetrics, type TSamples } from "./lib/metrics";
import { cpuMs, machine, rssMb } from "./lib/proc";
import {
  benchServerEnv,
  bridgeToken,
  ensureBuild,
  freePort,
  restClient,
  ROOT,
  seed,
  startCapstan,
  startPeers,
  stopGroup,
} from "./lib/setup";

const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const SAMPLE = Number(process.env.SOAK_SAMPLE_SECONDS ?? 5);
const WARMUP = Number(process.env.SOAK_WARMUP_SECONDS ?? Math.min(120, Math.round(SECONDS * 0.2)));
const LOAD = Number(process.env.SOAK_LOAD ?? 0.7);
const PROBE = Number(process.env.SOAK_PROBE_SECONDS ?? 10);

ensureBuild();
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const pgVersion = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
const dbName = `capstan_bench_soak_${Date.now()}`;
await admin.query(`CREATE DATABASE ${dbName}`);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "capstan-soak-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const metricsToken = randomBytes(24).toString("hex");
const env = benchServerEnv({
  databaseUrl: ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`),
  dataDir,
  port,
  extra: { CAPSTAN_METRICS_TOKEN: metricsToken },
});
Object.assign(process.env, env);

const peers = await startPeers();
const logFile = path.join(dataDir, "server.log");
console.log(`soak: npm start on ${base} (log ${logFile})`);
const capstan = await startCapstan(env, logFile, base, null);
const cleanup = () => {
  stopGroup(capstan.child);
  peers.child.kill();
};
process.on("exit", cleanup);

const { getDb, closeDb } = await import("../src/server/platform/db/client");
const { issueTokenForEmail } = await import("../src/server/domain/identity/tokens.service");
await getDb();
const ownerToken = await issueTokenForEmail("bench@example.test", 3600, "bench");
const rest = restClient(base, ownerToken);
const s = await seed(rest, dataDir, peers);
// Workers do their whole job: every event is delivered to a loopback receiver (SOAK_WEBHOOK=0: none).
const webhook = process.env.SOAK_WEBHOOK !== "0";
if (webhook)
  await rest("POST", `/v1/workspaces/${s.ws}/event-subscriptions`, {
    url: peers.webhookUrl,
    event_types: ["*"],
    description: "soak",
  });

let token = await bridgeToken(base, s.svc);
let tokenAt = Date.now();
const body = Buffer.from(
  JSON.stringify({ model_kind: "text", input: { messages: [{ role: "user", content: "hi" }] }, max_tokens: 16 }),
);
const target: TTarget = {
  name: "capstan",
  host: "127.0.0.1",
  port,
  next: () => ({
    method: "POST",
    path: "/v1/capabilities/ai.generate/generate",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
  }),
};

const warm = await run(target, 1, 2);
if (!warm.count) throw new Error(`ai.generate: no 2xx answer while warming up (${JSON.stringify(warm.statuses)})`);
let maxRps = Number(process.env.SOAK_MAX_RPS ?? 0);
let maxFrom = "SOAK_MAX_RPS";
if (!maxRps) {
  const probe = await run(target, 10, PROBE);
  maxRps = probe.count / probe.seconds;
  maxFrom = `probe: ${PROBE} s at concurrency 10 on this server (${probe.count} calls, ${probe.errors} errors)`;
}
const rate = Math.max(1, Math.round(maxRps * LOAD));
console.log(
  `soak: max ${Math.round(maxRps)} req/s (${maxFrom}); running ${rate} req/s for ${SECONDS} s, sampling every ${SAMPLE} s, warm-up ${WARMUP} s`,
);

type TSample = {
  t: number;
  rss_mb: number;
  cpu_ms: number;
  calls: number;
  errors: number;
  skipped: number;
  outbox_depth: number | null;
  outbox_lag_s: number | null;
  /** V8's heap in use (prom-client's default gauge): live objects plus garbage not yet collected. */
  heap_used_mb: number | null;
};
const samples: TSample[] = [];
const mb = (bytes: number | undefined) => (bytes === undefined ? null : round(bytes / 1048576, 1)!);
const scrape = async (): Promise<TSamples> => scrapeMetrics(base, metricsToken).catch(() => new Map());
const metricsBefore = await scrape();
const cpuBefore = cpuMs(capstan.serverPid);
const sampleNow = async (st: { latencies: number[]; errors: number; skipped: number }, t: number) => {
  const m = await scrape();
  const sample: TSample = {
    t: round(t, 1)!,
    rss_mb: rssMb(capstan.serverPid),
    cpu_ms: cpuMs(capstan.serverPid) - cpuBefore,
    calls: st.latencies.length,
    errors: st.errors,
    skipped: st.skipped,
    outbox_depth: m.get("capstan_outbox_depth") ?? null,
    outbox_lag_s: m.get("capstan_outbox_lag_seconds") ?? null,
    heap_used_mb: mb(m.get("capstan_nodejs_heap_size_used_bytes")),
  };
  samples.push(sample);
  console.log(`soak: ${JSON.stringify(sample)}`);
};
const result = await paced(target, rate, SECONDS, {
  tickSeconds: SAMPLE,
  onTick: async (st, t) => {
    await sampleNow(st, t);
    if (Date.now() - tokenAt > 300_000) {
      token = await bridgeToken(base, s.svc);
      tokenAt = Date.now();
    }
  },
});
await sampleNow(result, result.seconds);
const cpuTotal = cpuMs(capstan.serverPid) - cpuBefore;
const metricsAfter = await scrape();

// The outbox after the load: how long until it is drained (bounded lag means it drains promptly).
const drainStarted = Date.now();
let depthAtEnd = Number(metricsAfter.get("capstan_outbox_depth") ?? NaN);
while (Date.now() - drainStarted < 60_000) {
  const m = await scrape();
  depthAtEnd = Number(m.get("capstan_outbox_depth") ?? NaN);
  if (depthAtEnd === 0) break;
  await new Promise((r) => setTimeout(r, 500));
}
const drainedSeconds = depthAtEnd === 0 ? round((Date.now() - drainStarted) / 1000, 1) : null;

const after = samples.filter((x) => x.t >= WARMUP);
const rss = after.map((x) => x.rss_mb);
function slopePerMinute(xs: number[], ys: number[]): number | null {
  if (xs.length < 2) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den ? (num / den) * 60 : null;
}
/** The heap in use after warm-up: first, last, max, and the slope (MB per minute) of each minute's lowest sample. */
function heapAfterWarmup(xs: TSample[]) {
  const heap = xs.filter((x) => x.heap_used_mb !== null);
  if (!heap.length) return null;
  const lows = new Map<number, { t: number; mb: number; n: number }>();
  for (const x of heap) {
    const minute = Math.floor(x.t / 60);
    const low = lows.get(minute);
    if (!low || x.heap_used_mb! < low.mb) lows.set(minute, { t: x.t, mb: x.heap_used_mb!, n: (low?.n ?? 0) + 1 });
    else low.n++;
  }
  // A minute with fewer than half its samples (the run's last, cut short) has no low worth the name.
  const l = [...lows.values()].filter((x) => x.n >= 60 / SAMPLE / 2);
  return {
    first: heap[0]!.heap_used_mb,
    last: heap[heap.length - 1]!.heap_used_mb,
    max: Math.max(...heap.map((x) => x.heap_used_mb!)),
    minute_lows: l.map((x) => x.mb),
    slope_of_lows_mb_per_minute: round(
      slopePerMinute(
        l.map((x) => x.t),
        l.map((x) => x.mb),
      ) ?? NaN,
    ),
  };
}
const lags = samples.map((x) => x.outbox_lag_s).filter((x): x is number => x !== null);
const logErrors = existsSync(logFile)
  ? readFileSync(logFile, "utf8")
      .split("\n")
      .filter((l) => /"level":"(error|fatal)"/.test(l)).length
  : null;
const dispatchP99 = histogramQuantile(metricsBefore, metricsAfter, "capstan_outbox_dispatch_lag_seconds", 0.99);

const report = {
  date: new Date().toISOString(),
  machine: machine(pgVersion),
  server:
    "npm start (scripts/start.mjs -> scripts/server.mjs, NODE_ENV=production, production build, workers in-process), fresh PostgreSQL database, CAPSTAN_METRICS_TOKEN set",
  scenario:
    "ai.generate (loopback OpenAI-compatible provider answering at once), open loop at a fixed rate, at most 64 requests in flight",
  webhook_subscription: webhook ? "every event type, to a loopback receiver answering 204" : null,
  max_requests_per_sec: Math.round(maxRps),
  max_from: maxFrom,
  load_fraction: LOAD,
  target_requests_per_sec: rate,
  seconds: round(result.seconds, 1),
  warmup_seconds: WARMUP,
  sample_seconds: SAMPLE,
  calls: result.latencies.length,
  achieved_requests_per_sec: Math.round(result.latencies.length / result.seconds),
  errors: result.errors,
  statuses: result.statuses,
  skipped_requests: result.skipped,
  server_log_error_lines: logErrors,
  latency_ms: {
    p50: round(pct(result.latencies, 50)),
    p99: round(pct(result.latencies, 99)),
    max: round(result.latencies.reduce((m, x) => (x > m ? x : m), 0)),
  },
  server_cpu_ms_per_call: round(cpuTotal / Math.max(1, result.latencies.length + result.errors)),
  rss_mb_after_warmup: {
    first: rss[0] ?? null,
    last: rss[rss.length - 1] ?? null,
    max: rss.length ? Math.max(...rss) : null,
    slope_mb_per_minute: round(
      slopePerMinute(
        after.map((x) => x.t),
        rss,
      ) ?? NaN,
    ),
  },
  // Whether a growing RSS is the heap's live set growing (a leak) or the process settling: the heap in use after
  // warm-up, its lowest sample per minute (closest to what survives a collection) and the slope of those lows.
  heap_used_mb_after_warmup: heapAfterWarmup(after),
  outbox_lag_seconds: {
    max: lags.length ? round(Math.max(...lags)) : null,
    p99: round(pct(lags, 99)),
    what: "capstan_outbox_lag_seconds (age of the oldest undispatched event) sampled every sample_seconds",
  },
  dispatch_lag_p99_seconds_at_most: dispatchP99 ? dispatchP99.le : null,
  dispatch_lag_what:
    "capstan_outbox_dispatch_lag_seconds histogram (event written -> dispatched) over the run: the upper bound of the bucket holding the 99th percentile",
  outbox_drained_after_load_seconds: drainedSeconds,
  samples,
};
console.log(JSON.stringify({ ...report, samples: undefined }, null, 2));
const resultsDir = path.join(ROOT, "bench", "results");
mkdirSync(resultsDir, { recursive: true });
writeFileSync(path.join(resultsDir, "soak.json"), JSON.stringify(report, null, 2) + "\n");
console.log("soak: wrote bench/results/soak.json");

await closeDb();
const exited = new Promise((r) => capstan.child.once("exit", r));
cleanup();
await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
await admin.end();
process.exit(0);
