/**
 * `npm run bench` (second part): the surface proxy on the path users run.
 * Starts the production build with `npm start` (scripts/start.mjs; it builds
 * first when there is no build) on a fresh PostgreSQL database, deploys the
 * test fixture app through the REST API (real intake, real deploy worker,
 * real local runner and sandbox), then measures side by side in the same run:
 *  - direct: the same app as a plain process on a loopback TCP port (the peer);
 *  - path route: GET <server>/s/<srf>/hello through Capstan;
 *  - host route: GET <server>/hello with Host: srf-<id>.localhost.
 * Latency is measured sequentially over keep-alive connections
 * (performance.now per request, BENCH_LATENCY_REQUESTS each, interleaved in
 * rounds so drift hits all three alike); throughput with autocannon
 * (BENCH_CONNECTIONS, BENCH_SECONDS). Results merge into
 * bench/results/latest.json under "surface_proxy".
 * Then invocations: POST /v1/sessions/{ses}/invocations for GET /hello
 * (admission, sequence, managed execution, evidence, usage) against the same
 * direct request, interleaved; admitted invocations/s with autocannon.
 * Merged under "invocations", with the server's Server-Timing per phase and the
 * PostgreSQL round trips of each invocation (bench/lib/round-trips.cjs).
 * The app runs under bubblewrap unless BENCH_SANDBOX says otherwise (gVisor's
 * cost is bench/isolation.ts's subject). BENCH_PROXY=0: invocations only, not
 * written to latest.json.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { childrenOf, cpuMs } from "./lib/proc";

const ROOT = path.resolve(import.meta.dirname, "..");
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const LATENCY_N = Number(process.env.BENCH_LATENCY_REQUESTS ?? 3000);

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

const dbName = `capstan_bench_srf_${Date.now()}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "capstan-bench-srf-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const serverEnv: Record<string, string> = {
  ...(process.env as Record<string, string>),
  NODE_ENV: "production",
  PORT: String(port),
  HOST: "127.0.0.1",
  DATABASE_URL: ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`),
  CAPSTAN_DATA_DIR: dataDir,
  CAPSTAN_MASTER_KEY: randomBytes(32).toString("base64"),
  CAPSTAN_PUBLIC_URL: base,
  NEXTAUTH_URL: base,
  NEXTAUTH_SECRET: randomBytes(24).toString("hex"),
  BOOTSTRAP_ADMIN_EMAIL: "bench@example.test",
  BOOTSTRAP_ADMIN_PASSWORD: "bench-password-123",
  SOURCE_ALLOW_LOCAL: "1",
  LOG_LEVEL: "error",
  CAPSTAN_WORKER_POLL_MS: "200",
  // Capstan's own cost, in the sandbox whose cost is small (a namespace, not a kernel): gVisor's is bench/isolation.ts's
  // subject (its netstack adds ~25 ms to every request there). BENCH_SANDBOX=gvisor|none|auto measures another.
  CAPSTAN_RUNNER_SANDBOX: process.env.BENCH_SANDBOX ?? "bubblewrap",
  // Measure the invocation path, not the per-session rate limit.
  CAPSTAN_SESSION_RATE_PER_SEC: "1000000",
  CAPSTAN_SESSION_BURST: "1000000",
  // Counts each invocation's PostgreSQL round trips (a Bench-Round-Trips header; bench/lib/round-trips.cjs).
  NODE_OPTIONS:
    `${process.env.NODE_OPTIONS ?? ""} --require ${path.join(ROOT, "bench", "lib", "round-trips.cjs")}`.trim(),
};
Object.assign(process.env, serverEnv);

console.log(`bench: starting npm start on ${base} (builds first if there is no production build)`);
// BENCH_CPU_PROF=<dir>: the server runs directly under `node --cpu-prof` (refused in NODE_OPTIONS) and writes its
// profile there when it stops (bench/lib/profile-top.ts summarises it), as in bench/run.ts.
const profDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : null;
const serverArgs = profDir
  ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`, path.join(ROOT, "scripts", "server.mjs")]
  : [path.join(ROOT, "scripts", "start.mjs")];
const server = spawn(process.execPath, serverArgs, {
  cwd: ROOT,
  env: serverEnv as NodeJS.ProcessEnv,
  stdio: ["ignore", "inherit", "inherit"],
  detached: true,
});
const stopServer = () => {
  try {
    process.kill(-server.pid!, "SIGTERM");
  } catch {
    /* gone */
  }
};
process.on("exit", stopServer);
for (let i = 0; ; i++) {
  const ok = await fetch(`${base}/readyz`)
    .then((r) => r.ok)
    .catch(() => false);
  if (ok) break;
  if (i > 600) throw new Error("the server did not become ready");
  await new Promise((r) => setTimeout(r, 500));
}

// A token for the bootstrap owner, signed with the server's own keys (same database and master key).
const { getDb, closeDb } = await import("../src/server/platform/db/client");
const { issueTokenForEmail } = await import("../src/server/domain/identity/tokens.service");
await getDb();
const token = await issueTokenForEmail("bench@example.test", 3600, "bench");
const rest = async (method: string, p: string, body?: unknown) => {
  const r = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await r.json().catch(() => null);
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(json)}`);
  return json;
};

const repo = path.join(dataDir, "repo");
mkdirSync(repo);
const appSource = readFileSync(path.join(ROOT, "test", "fixtures", "hosted-app.js"), "utf8");
writeFileSync(path.join(repo, "server.js"), appSource);
writeFileSync(
  path.join(repo, "package.json"),
  JSON.stringify({ name: "app", version: "1.0.0", scripts: { start: "node server.js" } }),
);
writeFileSync(
  path.join(repo, "package-lock.json"),
  JSON.stringify({
    name: "app",
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: { "": { name: "app", version: "1.0.0" } },
  }),
);
const git = (...a: string[]) =>
  execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.test", ...a], { cwd: repo });
git("init", "-q", "-b", "main");
git("add", "-A");
git("commit", "-q", "-m", "bench");

const ws = (await rest("POST", "/v1/workspaces", { name: "bench" })).id;
const intake = await rest("POST", `/v1/workspaces/${ws}/products`, {
  repo_url: `file://${repo}`,
  ref: "main",
  auth: { kind: "none" },
});
let freeze = { status: "pending", revision: { id: "" } };
const freezeUntil = Date.now() + 120_000;
while (freeze.status === "pending") {
  if (Date.now() > freezeUntil) throw new Error("the source freeze did not finish within 120 s");
  await new Promise((r) => setTimeout(r, 200));
  freeze = await rest("GET", `/v1/workspaces/${ws}/source-freezes/${intake.source_freeze_id}`);
}
const rev = freeze.revision.id;
await rest("POST", `/v1/workspaces/${ws}/products/${intake.product_id}/revisions/${rev}/descriptor:confirm`, {
  edits: { build_plan: { health: { path: "/health" } } },
});
let dep = await rest("POST", `/v1/workspaces/${ws}/revisions/${rev}/deployments`, { environment_type: "preview" });
const deployUntil = Date.now() + 300_000;
while (dep.status === "planned" || dep.status === "applying") {
  if (Date.now() > deployUntil) throw new Error("the deployment did not finish within 300 s");
  await new Promise((r) => setTimeout(r, 200));
  dep = await rest("GET", `/v1/workspaces/${ws}/deployments/${dep.id}`);
}
if (dep.status !== "active") throw new Error(`deployment ended ${dep.status}: ${JSON.stringify(dep.findings)}`);
const srf = dep.surface_id as string;
console.log(`bench: deployment ${dep.id} active (sandbox: ${dep.isolation.sandbox}), surface ${srf}`);

// The peer: the same app as a plain process on a loopback port.
const directPort = await freePort();
const direct = spawn(process.execPath, [path.join(repo, "server.js")], {
  env: { PATH: process.env.PATH!, PORT: String(directPort), NODE_ENV: "production" },
  stdio: "ignore",
});
for (
  let i = 0;
  !(await fetch(`http://127.0.0.1:${directPort}/health`)
    .then((r) => r.ok)
    .catch(() => false));
  i++
) {
  if (i > 100) throw new Error("direct app did not start");
  await new Promise((r) => setTimeout(r, 50));
}

type TTarget = { name: string; url: string; headers: Record<string, string> };
const hostHeader = `srf-${srf.slice(4)}.localhost:${port}`;
const targets: TTarget[] = [
  { name: "direct", url: `http://127.0.0.1:${directPort}/hello`, headers: {} },
  { name: "path_route", url: `${base}/s/${srf}/hello`, headers: {} },
  { name: "host_route", url: `${base}/hello`, headers: { host: hostHeader } },
];

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function once(t: TTarget): Promise<number> {
  const u = new URL(t.url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: "GET", headers: t.headers, agent },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`${t.name}: ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}
const pct = (v: number[], p: number) => {
  const s = [...v].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 1000) / 1000;
};
// BENCH_PROXY=0 leaves the surface proxy out (a quick look at invocations; latest.json keeps the last proxy figures).
const PROXY = process.env.BENCH_PROXY !== "0";
for (const t of targets) for (let i = 0; i < (PROXY ? 200 : 20); i++) await once(t); // warm-up (JIT, pools)
const samples: Record<string, number[]> = Object.fromEntries(targets.map((t) => [t.name, []]));
const ROUNDS = 10;
if (PROXY)
  for (let r = 0; r < ROUNDS; r++)
    for (const t of targets) for (let i = 0; i < LATENCY_N / ROUNDS; i++) samples[t.name]!.push(await once(t));

const throughput: Record<string, number> = {};
if (PROXY)
  for (const t of targets) {
    const result = await autocannon({ url: t.url, headers: t.headers, connections: CONNECTIONS, duration: DURATION });
    throughput[t.name] = Math.round(result.requests.average);
    if (result.non2xx) console.warn(`bench: ${t.name} had ${result.non2xx} non-2xx answers`);
  }

// Invocations: POST /v1/sessions/{ses}/invocations (admission, sequence, managed execution, evidence, usage).
const session = await rest("POST", "/v1/sessions", { surface_id: srf });
const invokeBody = JSON.stringify({ kind: "http_request", method: "GET", path: "/hello", body_evidence: null });
const invokePath = `/v1/sessions/${session.id}/invocations`;
const roundTrips: number[] = [];
const invokeTiming: Record<string, number[]> = {};
function invokeOnce(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: invokePath,
        method: "POST",
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(invokeBody),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const n = Number(res.headers["bench-round-trips"]);
          if (Number.isFinite(n)) roundTrips.push(n);
          for (const part of String(res.headers["server-timing"] ?? "").split(",")) {
            const m = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
            if (m) (invokeTiming[m[1]!] ??= []).push(Number(m[2]));
          }
          const j = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          if (res.statusCode !== 201 || j.admission?.outcome !== "admitted" || j.execution?.result?.http_status !== 200)
            reject(new Error(`invocation: ${res.statusCode} ${JSON.stringify(j).slice(0, 300)}`));
          else resolve(performance.now() - started);
        });
      },
    );
    req.on("error", reject);
    req.end(invokeBody);
  });
}
const INVOKE_N = Math.max(100, Math.round(LATENCY_N / 10));
for (let i = 0; i < 30; i++) await invokeOnce();
samples.invocation = [];
samples.direct_again = [];
roundTrips.splice(0);
for (const k of Object.keys(invokeTiming)) delete invokeTiming[k];
for (let r = 0; r < ROUNDS; r++) {
  for (let i = 0; i < INVOKE_N / ROUNDS; i++) samples.invocation.push(await invokeOnce());
  for (let i = 0; i < INVOKE_N / ROUNDS; i++) samples.direct_again.push(await once(targets[0]!));
}
// CPU per admitted invocation under load: the server process, and every PostgreSQL process (backends, WAL writer,
// checkpointer): wall-clock figures swing with the machine, CPU time per call much less.
const serverPid = profDir ? server.pid! : (childrenOf(server.pid!)[0] ?? server.pid!);
const postgresCpu = () =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .reduce((sum, d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, "utf8").trim() === "postgres" ? sum + cpuMs(Number(d)) : sum;
      } catch {
        return sum;
      }
    }, 0);
const cpuBefore = { server: cpuMs(serverPid), postgres: postgresCpu() };
const invokeLoad = await autocannon({
  url: `${base}${invokePath}`,
  method: "POST",
  body: invokeBody,
  connections: CONNECTIONS,
  duration: DURATION,
  headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
});
if (invokeLoad.non2xx) console.warn(`bench: invocations had ${invokeLoad.non2xx} non-2xx answers`);
throughput.invocation = Math.round(invokeLoad.requests.average);
const admittedTotal = Math.max(1, invokeLoad.requests.total - invokeLoad.non2xx);
const cpuPerAdmitted = {
  server: Math.round(((cpuMs(serverPid) - cpuBefore.server) / admittedTotal) * 1000) / 1000,
  postgres: Math.round(((postgresCpu() - cpuBefore.postgres) / admittedTotal) * 1000) / 1000,
};

const lat = (name: string) => ({ p50: pct(samples[name]!, 50), p99: pct(samples[name]!, 99) });
const summary = {
  date: new Date().toISOString(),
  server: "npm start (production build), PostgreSQL, workers in-process",
  sandbox: dep.isolation.sandbox,
  latency_requests_each: LATENCY_N,
  connections: CONNECTIONS,
  duration_s: DURATION,
  latency_ms: { direct: lat("direct"), path_route: lat("path_route"), host_route: lat("host_route") },
  added_latency_ms: {
    path_route: {
      p50: Math.round((lat("path_route").p50 - lat("direct").p50) * 1000) / 1000,
      p99: Math.round((lat("path_route").p99 - lat("direct").p99) * 1000) / 1000,
    },
    host_route: {
      p50: Math.round((lat("host_route").p50 - lat("direct").p50) * 1000) / 1000,
      p99: Math.round((lat("host_route").p99 - lat("direct").p99) * 1000) / 1000,
    },
  },
  requests_per_sec: throughput,
  target: { added_p50_ms: 1 },
};
const invocations = {
  requests_each: INVOKE_N,
  latency_ms: { invocation: lat("invocation"), direct: lat("direct_again") },
  added_latency_ms: {
    p50: Math.round((lat("invocation").p50 - lat("direct_again").p50) * 1000) / 1000,
    p99: Math.round((lat("invocation").p99 - lat("direct_again").p99) * 1000) / 1000,
  },
  admitted_per_sec: throughput.invocation,
  non_2xx: invokeLoad.non2xx,
  // CPU time per admitted invocation during the throughput run (ms): the server process, all PostgreSQL processes.
  cpu_ms_per_admitted: cpuPerAdmitted,
  // PostgreSQL round trips within each sequential invocation's request (pg Client#query calls), p50 and max.
  // The server's own Server-Timing of the sequential invocations (p50 per phase; overhead = total - app).
  server_timing_p50_ms: Object.fromEntries(Object.entries(invokeTiming).map(([k, v]) => [k, pct(v, 50)])),
  round_trips_per_invocation: roundTrips.length ? { p50: pct(roundTrips, 50), max: Math.max(...roundTrips) } : null,
  target: { added_p50_ms: 5, admitted_per_sec: 400 },
};
console.log(JSON.stringify({ invocations }, null, 2));
console.log(JSON.stringify(summary, null, 2));

// A partial run (BENCH_PROXY=0) never replaces the published figures.
const file = PROXY ? path.join(ROOT, "bench", "results", "latest.json") : path.join(dataDir, "partial.json");
const all = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
all.surface_proxy = summary;
all.invocations = {
  date: summary.date,
  server: summary.server,
  connections: CONNECTIONS,
  duration_s: DURATION,
  ...invocations,
};
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, JSON.stringify(all, null, 2) + "\n");
console.log(`bench: merged surface_proxy and invocations into ${path.relative(ROOT, file) || file}`);

direct.kill();
await rest("POST", `/v1/workspaces/${ws}/deployments/${dep.id}:stop`);
await closeDb();
stopServer();
await new Promise((r) => setTimeout(r, 2_000));
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
await admin.end();
process.exit(0);
