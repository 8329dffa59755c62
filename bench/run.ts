/**
 * `npm run bench`: Capstan as `npm start` serves it, side by side with the
 * provider called directly and with a dedicated AI gateway, in one run.
 *
 * - Reuses the production build when it is newer than the sources (else
 *   `npm run build`; BENCH_BUILD=always|never), starts it with `npm start`
 *   (scripts/start.mjs -> scripts/server.mjs, NODE_ENV=production, workers
 *   in-process) on a fresh PostgreSQL database, and seeds a workspace,
 *   product, credentials, bindings and a service identity through the REST API.
 * - Upstreams in their own process (bench/lib/peers.ts): a loopback
 *   OpenAI-compatible provider and the S3-compatible test server.
 * - Peer: @portkey-ai/gateway (devDependency) as a child process, pointed at
 *   the same provider.
 * - Per scenario and target: latency at concurrency 1 (targets interleaved in
 *   rounds, so drift hits all alike) and at concurrency 10, requests/s,
 *   overhead = the target's percentile minus the direct call's, Capstan's
 *   own Capstan-Overhead-Ms and Server-Timing, server CPU ms per call
 *   (/proc/<pid>/stat utime+stime delta / calls; workers included) and RSS.
 * - Then bench/surface.ts (surface proxy, admitted invocations; also on
 *   `npm start`) unless BENCH_SURFACE=0.
 * Writes bench/results/latest.json and bench/results/<date>.json with the
 * machine description. BENCH_SECONDS (default 10) is the time per target and
 * concurrency. Everything shares the machine: compare ratios within one run.
 */
import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { parseServerTiming, pct, round, run, send, signS3, type TRun, type TTarget } from "./lib/load";
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
  startPortkey,
  stopGroup,
} from "./lib/setup";
import { outboxScenario } from "./lib/outbox";

const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = 5;
const CONCURRENCY = [1, 10] as const;

ensureBuild();
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const pgVersion = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
const dbName = `capstan_bench_${Date.now()}`;
await admin.query(`CREATE DATABASE ${dbName}`);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "capstan-bench-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = benchServerEnv({ databaseUrl: ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`), dataDir, port });
// BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops (summarise with bench/lib/profile-top.ts).
const profDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : null;
if (profDir) mkdirSync(profDir, { recursive: true });
Object.assign(process.env, env);

const peers = await startPeers();
console.log(`bench: provider ${peers.provider.baseUrl}, S3 ${peers.s3.endpoint}`);
const portkey = await startPortkey(path.join(dataDir, "portkey.log"));
console.log(`bench: Portkey gateway on 127.0.0.1:${portkey.port}`);
console.log(`bench: npm start on ${base} (log ${path.join(dataDir, "server.log")})`);
const capstan = await startCapstan(env, path.join(dataDir, "server.log"), base, profDir);
const cleanup = () => {
  stopGroup(capstan.child);
  portkey.child.kill();
  peers.child.kill();
};
process.on("exit", cleanup);

// The bootstrap owner's API token, issued by the services on the server's own database and keys.
const { getDb, closeDb } = await import("../src/server/platform/db/client");
const { issueTokenForEmail } = await import("../src/server/domain/identity/tokens.service");
await getDb();
const ownerToken = await issueTokenForEmail("bench@example.test", 3600, "bench");
const rest = restClient(base, ownerToken);
const s = await seed(rest, dataDir, peers);
console.log(`bench: seeded workspace ${s.ws}, product ${s.productId}, service identity ${s.svc.id}`);

const providerUrl = new URL(peers.provider.baseUrl);
const s3Url = new URL(peers.s3.endpoint);
const json = (v: unknown) => Buffer.from(JSON.stringify(v));

type TSide = { target: TTarget; pid?: number; overheadHeader?: number[]; timing?: Record<string, number[]> };
type TScenario = { name: string; sides: Record<string, TSide>; prepare?: () => Promise<void> };

// Bridge tokens live 10 minutes: each scenario takes a fresh one.
let token = "";
function capstanSide(capability: string, action: string, body: (i: number) => unknown): TSide {
  const overheadHeader: number[] = [];
  const timing: Record<string, number[]> = {};
  return {
    pid: capstan.serverPid,
    overheadHeader,
    timing,
    target: {
      name: "capstan",
      host: "127.0.0.1",
      port,
      next: (i) => ({
        method: "POST",
        path: `/v1/capabilities/${capability}/${action}`,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: json(body(i)),
      }),
      onHeaders: (h) => {
        const o = Number(h["capstan-overhead-ms"]);
        if (Number.isFinite(o)) overheadHeader.push(o);
        for (const [k, v] of Object.entries(parseServerTiming(h["server-timing"]))) (timing[k] ??= []).push(v);
      },
    },
  };
}

const chat = { model: "bench-model", messages: [{ role: "user", content: "hi" }], max_tokens: 16 };
const objectBody = randomBytes(768).toString("base64"); // 1 KiB of base64 text
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(",").map((x) => x.trim())) : null;
const allScenarios: TScenario[] = [
  {
    name: "ai.generate",
    sides: {
      direct: {
        target: {
          name: "direct",
          host: providerUrl.hostname,
          port: Number(providerUrl.port),
          next: () => ({
            method: "POST",
            path: "/v1/chat/completions",
            headers: { authorization: `Bearer ${peers.provider.apiKey}`, "content-type": "application/json" },
            body: json(chat),
          }),
        },
      },
      capstan: capstanSide("ai.generate", "generate", () => ({
        model_kind: "text",
        input: { messages: chat.messages },
        max_tokens: 16,
      })),
      portkey: {
        pid: portkey.child.pid,
        target: {
          name: "portkey",
          host: "127.0.0.1",
          port: portkey.port,
          next: () => ({
            method: "POST",
            path: "/v1/chat/completions",
            headers: {
              authorization: `Bearer ${peers.provider.apiKey}`,
              "content-type": "application/json",
              "x-portkey-provider": "openai",
              "x-portkey-custom-host": peers.provider.baseUrl,
            },
            body: json(chat),
          }),
        },
      },
    },
  },
  { name: "data.kv get", sides: { capstan: capstanSide("data.kv", "get", () => ({ key: "/bench/k" })) } },
  {
    name: "data.kv set",
    sides: {
      capstan: capstanSide("data.kv", "set", (i) => ({ key: `/bench/k${i % 100}`, value: { hello: "world", i } })),
    },
  },
  {
    name: "storage.object put",
    sides: {
      direct: {
        target: {
          name: "direct",
          host: s3Url.hostname,
          port: Number(s3Url.port),
          next: (i) => {
            const body = Buffer.from(objectBody);
            const p = `/${peers.s3.bucket}/direct/obj-${i % 100}`;
            return {
              method: "PUT",
              path: p,
              body,
              headers: {
                ...signS3({
                  method: "PUT",
                  host: s3Url.host,
                  path: p,
                  body,
                  region: peers.s3.region,
                  accessKeyId: peers.s3.accessKeyId,
                  secretAccessKey: peers.s3.secretAccessKey,
                }),
                "content-type": "text/plain",
              },
            };
          },
        },
      },
      capstan: capstanSide("storage.object", "write", (i) => ({
        key: `/files/obj-${i % 100}`,
        content_base64: Buffer.from(objectBody).toString("base64"),
        content_type: "text/plain",
      })),
    },
  },
  {
    name: "storage.object get",
    // Every object the get sides read exists (written through Capstan, so the direct side reads Capstan's keys).
    prepare: async () => {
      const put = capstanSide("storage.object", "write", (i) => ({
        key: `/files/obj-${i}`,
        content_base64: Buffer.from(objectBody).toString("base64"),
        content_type: "text/plain",
      }));
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; i < 100; i++) {
        const r = await send(agent, put.target, i);
        if (r.status !== 200)
          throw new Error(`storage.object write: ${r.status} ${r.body.toString("utf8").slice(0, 300)}`);
      }
      agent.destroy();
    },
    sides: {
      direct: {
        target: {
          name: "direct",
          host: s3Url.hostname,
          port: Number(s3Url.port),
          next: (i) => {
            const p = `/${peers.s3.bucket}/${s.productId}/files/obj-${i % 100}`;
            return {
              method: "GET",
              path: p,
              headers: signS3({
                method: "GET",
                host: s3Url.host,
                path: p,
                body: Buffer.alloc(0),
                region: peers.s3.region,
                accessKeyId: peers.s3.accessKeyId,
                secretAccessKey: peers.s3.secretAccessKey,
              }),
            };
          },
        },
      },
      capstan: capstanSide("storage.object", "read", (i) => ({ key: `/files/obj-${i % 100}` })),
    },
  },
];

// BENCH_ONLY="ai.generate,data.kv get" runs only those (a quick look at one lever; the targets need all).
const scenarios = allScenarios.filter((sc) => !ONLY || ONLY.has(sc.name));
const ms = (v: number) => round(v, 3);
function latency(r: TRun) {
  return {
    p50: ms(pct(r.latencies, 50)),
    p99: ms(pct(r.latencies, 99)),
    requests_per_sec: Math.round(r.count / r.seconds),
    calls: r.count,
    errors: r.errors,
  };
}

const out: Record<string, Record<string, unknown>> = {};
for (const sc of scenarios) {
  token = await bridgeToken(base, s.svc);
  await sc.prepare?.();
  // Warm every side (JIT, pools, caches), and make sure it answers 2xx before measuring.
  for (const [name, side] of Object.entries(sc.sides)) {
    const w = await run(side.target, 1, Math.min(2, SECONDS), 0);
    if (!w.count) throw new Error(`${sc.name} ${name}: no 2xx answer while warming up (${JSON.stringify(w.statuses)})`);
  }
  const perConcurrency: Record<string, unknown> = {};
  for (const c of CONCURRENCY) {
    const runs: Record<string, TRun> = {};
    const cpu: Record<string, number> = {};
    for (const side of Object.values(sc.sides)) {
      side.overheadHeader?.splice(0);
      for (const k of Object.keys(side.timing ?? {})) side.timing![k]!.splice(0);
    }
    // c=1: rounds interleave the sides; c=10: one stretch each.
    const rounds = c === 1 ? ROUNDS : 1;
    for (let r = 0; r < rounds; r++) {
      for (const [name, side] of Object.entries(sc.sides)) {
        const before = side.pid ? cpuMs(side.pid) : 0;
        const got = await run(side.target, c, SECONDS / rounds);
        if (side.pid) cpu[name] = (cpu[name] ?? 0) + cpuMs(side.pid) - before;
        const acc = (runs[name] ??= { latencies: [], errors: 0, statuses: {}, seconds: 0, count: 0 });
        // Not push(...xs): a fast side yields more samples than a call may take arguments.
        for (const l of got.latencies) acc.latencies.push(l);
        acc.errors += got.errors;
        acc.seconds += got.seconds;
        acc.count += got.count;
        for (const [st, n] of Object.entries(got.statuses)) acc.statuses[st] = (acc.statuses[st] ?? 0) + n;
      }
    }
    const row: Record<string, unknown> = {};
    const direct = runs.direct;
    for (const [name, side] of Object.entries(sc.sides)) {
      const r = runs[name]!;
      const entry: Record<string, unknown> = { latency_ms: latency(r) };
      if (direct && name !== "direct") {
        entry.overhead_ms = {
          p50: ms(pct(r.latencies, 50) - pct(direct.latencies, 50)),
          p99: ms(pct(r.latencies, 99) - pct(direct.latencies, 99)),
        };
      }
      if (side.overheadHeader?.length) {
        entry.capstan_overhead_ms_header = {
          p50: ms(pct(side.overheadHeader, 50)),
          p99: ms(pct(side.overheadHeader, 99)),
        };
      }
      if (side.timing && Object.keys(side.timing).length) {
        entry.server_timing_p50_ms = Object.fromEntries(
          Object.entries(side.timing).map(([k, v]) => [k, ms(pct(v, 50))]),
        );
      }
      if (side.pid) {
        entry.server_cpu_ms_per_call = ms(cpu[name]! / Math.max(1, r.count + r.errors));
        entry.rss_mb = rssMb(side.pid);
      }
      if (r.errors) entry.statuses = r.statuses;
      row[name] = entry;
    }
    perConcurrency[`c${c}`] = row;
    console.log(`${sc.name} c=${c}`, JSON.stringify(row));
  }
  out[sc.name] = perConcurrency;
}

// Workers keep up (issue #16 item 5): the dispatcher's sustained rate against the Bridge's event rate at max throughput.
let outbox: Awaited<ReturnType<typeof outboxScenario>> | null = null;
if (!ONLY || ONLY.has("outbox")) {
  token = await bridgeToken(base, s.svc);
  outbox = await outboxScenario({
    databaseUrl: env.DATABASE_URL!,
    rest,
    ws: s.ws,
    webhookUrl: peers.webhookUrl,
    seconds: SECONDS,
    target: capstanSide("ai.generate", "generate", () => ({
      model_kind: "text",
      input: { messages: chat.messages },
      max_tokens: 16,
    })).target,
  });
  console.log("outbox", JSON.stringify(outbox));
}

// The floor under the record commit (issue #34 item 2): a one-row durable commit on a connection of our own to the
// same database, beside the server's own Server-Timing at c=1: `commit` (the record statement's round trip, commit
// included, as the server timed it) and `record` (that plus the output check, pricing and the group commit's queue).
const floor = await commitFloor(env.DATABASE_URL!);
const ai1Timing = (
  out["ai.generate"]?.c1 as Record<string, { server_timing_p50_ms?: Record<string, number> }> | undefined
)?.capstan?.server_timing_p50_ms;
const commits = {
  durable_commit_floor_p50_ms: floor.p50,
  durable_commit_floor_p99_ms: floor.p99,
  record_statement_p50_ms_c1: ai1Timing?.commit ?? null,
  record_p50_ms_c1: ai1Timing?.record ?? null,
  reserve_p50_ms_c1: ai1Timing?.reserve ?? null,
};
console.log("commits", JSON.stringify(commits));

async function commitFloor(url: string): Promise<{ p50: number; p99: number }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("CREATE TABLE IF NOT EXISTS bench_commit_floor (id bigint)");
  const lat: number[] = [];
  for (let i = 0; i < 1_500; i++) {
    const t = performance.now();
    await c.query({ name: "floor", text: "INSERT INTO bench_commit_floor VALUES ($1)", values: [i] });
    if (i >= 100) lat.push(performance.now() - t);
  }
  await c.query("DROP TABLE bench_commit_floor");
  await c.end();
  return { p50: round(pct(lat, 50), 3) ?? 0, p99: round(pct(lat, 99), 3) ?? 0 };
}

// The issue's targets (2 cores), checked against this run (null when a scenario was left out).
type TRow = Record<
  string,
  | {
      latency_ms: { requests_per_sec: number };
      overhead_ms?: { p50: number; p99: number };
      server_cpu_ms_per_call?: number;
    }
  | undefined
>;
const ai1 = out["ai.generate"]?.c1 as TRow | undefined;
const ai10 = out["ai.generate"]?.c10 as TRow | undefined;
const kv10 = out["data.kv get"]?.c10 as TRow | undefined;
const check = (capstan: number | undefined, met: (v: number) => boolean, gateway?: number) =>
  capstan === undefined ? null : { capstan, ...(gateway !== undefined ? { gateway } : {}), met: met(capstan) };
const gw1 = ai1?.portkey?.overhead_ms?.p50 ?? Infinity;
const gw10 = ai10?.portkey?.latency_ms.requests_per_sec ?? 0;
const targets = {
  "ai.generate overhead p50 (c=1) below the gateway's and <= 1.5 ms": check(
    ai1?.capstan?.overhead_ms?.p50,
    (v) => v < gw1 && v <= 1.5,
    ai1?.portkey?.overhead_ms?.p50,
  ),
  "ai.generate overhead p99 (c=1) <= 8 ms": check(ai1?.capstan?.overhead_ms?.p99, (v) => v <= 8),
  "ai.generate req/s (c=10) >= the gateway's": check(
    ai10?.capstan?.latency_ms.requests_per_sec,
    (v) => v >= gw10,
    ai10?.portkey?.latency_ms.requests_per_sec,
  ),
  "data.kv get >= 1500 req/s (c=10)": check(kv10?.capstan?.latency_ms.requests_per_sec, (v) => v >= 1500),
  "server CPU <= 1.5 ms per ai.generate call (c=10)": check(
    ai10?.capstan?.server_cpu_ms_per_call,
    (v) => v <= 1.5,
    ai10?.portkey?.server_cpu_ms_per_call,
  ),
  "outbox dispatcher >= 2x the Bridge's event rate at max throughput (ai.generate c=10)": check(
    outbox?.dispatcher_to_bridge_ratio ?? undefined,
    (v) => v >= 2,
  ),
  "dispatch lag p99 < 2000 ms at max throughput (ai.generate c=10)": check(
    outbox?.dispatch_lag_ms_at_max_throughput.p99 ?? undefined,
    (v) => v < 2000,
  ),
};
console.log(JSON.stringify(targets, null, 2));

const date = new Date().toISOString();
const results: Record<string, unknown> = {
  date,
  machine: machine(pgVersion),
  server:
    "npm start (scripts/start.mjs -> scripts/server.mjs, NODE_ENV=production, production build, workers in-process), fresh PostgreSQL database",
  peer: `@portkey-ai/gateway ${JSON.parse(readFileSync(path.join(ROOT, "node_modules", "@portkey-ai", "gateway", "package.json"), "utf8")).version} (node build/start-server.js --headless, NODE_ENV=production)`,
  upstreams:
    "loopback OpenAI-compatible provider answering at once; S3-compatible test server (test/support/s3-server.ts); one process of their own",
  seconds_per_target: SECONDS,
  method:
    "overhead_ms = the target's latency percentile minus the direct call's in the same run; c1 interleaves the targets in 5 rounds; server_cpu_ms_per_call = /proc utime+stime delta of the server process / calls (its workers included)",
  bridge: out,
  commits,
  outbox,
  targets,
};
const resultsDir = path.join(ROOT, "bench", "results");
mkdirSync(resultsDir, { recursive: true });
// A partial run (BENCH_ONLY) never replaces the published figures.
const latest = ONLY ? path.join(dataDir, "partial.json") : path.join(resultsDir, "latest.json");
writeFileSync(latest, JSON.stringify(results, null, 2) + "\n");

await closeDb();
const exited = new Promise((r) => capstan.child.once("exit", r));
cleanup();
// A graceful stop (the profile, if any, is written at exit).
await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
await admin.end();

if (ONLY) {
  console.log(`bench: partial run (BENCH_ONLY) written to ${latest}`);
  process.exit(0);
}
if (process.env.BENCH_SURFACE !== "0") {
  // Surface proxy and admitted invocations (their own npm start, deployment and sandbox); merged into latest.json.
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "surface.ts")], {
    cwd: ROOT,
    stdio: "inherit",
    env: process.env,
  });
  if (r.status !== 0) console.warn("bench: the surface bench failed; latest.json has the Bridge figures only");
}
const final = readFileSync(latest, "utf8");
writeFileSync(path.join(resultsDir, `${date.slice(0, 19).replace(/[:T]/g, "-")}.json`), final);
console.log(`bench: wrote bench/results/latest.json and bench/results/${date.slice(0, 19).replace(/[:T]/g, "-")}.json`);
process.exit(0);
