/**
 * `npm run bench` (isolation, issue #31 item 6): what each sandbox costs, side
 * by side in one run. For every mode of BENCH_ISOLATION_MODES (default
 * "gvisor,bubblewrap") it starts the production server with `npm start`
 * (bench/lib/setup.ts: the production build, reused when newer than the
 * sources) on a fresh PostgreSQL database with CAPSTAN_RUNNER_SANDBOX=<mode>,
 * and deploys the test fixture app (test/fixtures/hosted-app.js) through the
 * REST API (real intake, deploy worker, runner and sandbox). Then, interleaved
 * across the modes so drift hits all alike:
 *  - cold start: POST …/deployments to `active` (polled every 25 ms), each on a
 *    new slot and stopped afterwards (BENCH_COLD_STARTS per mode);
 *  - surface proxy: GET /s/<srf>/hello per mode against the same app as a plain
 *    process on a loopback port (the direct peer): latency sequentially over
 *    keep-alive (BENCH_LATENCY_REQUESTS each, in rounds), added = mode - direct;
 *    requests/s with autocannon (BENCH_CONNECTIONS, BENCH_SECONDS);
 *  - an admitted invocation: POST /v1/sessions/{ses}/invocations for GET /hello,
 *    latency and admitted/s the same way.
 * A mode the host (or this Capstan) cannot run is reported with the server's
 * own reason instead of figures. Writes bench/results/isolation.json.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { machine } from "./lib/proc";
import { benchServerEnv, ensureBuild, freePort, restClient, ROOT, stopGroup, type TRest } from "./lib/setup";

const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const MODES = (process.env.BENCH_ISOLATION_MODES ?? "gvisor,bubblewrap")
  .split(",")
  .map((m) => m.trim())
  .filter(Boolean);
const COLD = Number(process.env.BENCH_COLD_STARTS ?? 5);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const LATENCY_N = Number(process.env.BENCH_LATENCY_REQUESTS ?? 2000);
const ROUNDS = 10;

type TSide = {
  mode: string;
  base: string;
  port: number;
  child: ChildProcess;
  db: string;
  rest: TRest;
  token: string;
  ws: string;
  rev: string;
  dep: { id: string; surface_id: string; isolation: Record<string, unknown> };
  session: string;
};
type TUnavailable = { mode: string; reason: string };

const pct = (v: number[], p: number) => {
  const s = [...v].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 1000) / 1000;
};
const lat = (v: number[]) => ({ p50: pct(v, 50), p99: pct(v, 99), n: v.length });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

ensureBuild();
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const pgVersion = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
const dataRoot = mkdtempSync(path.join(os.tmpdir(), "capstan-bench-iso-"));
const repo = makeRepo(path.join(dataRoot, "repo"));

/** `npm start` with this mode; resolves when /readyz answers, or with the server's reason when it exits first. */
async function startMode(mode: string): Promise<TSide | TUnavailable> {
  const db = `capstan_bench_iso_${mode}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${db}`);
  const dataDir = path.join(dataRoot, mode);
  mkdirSync(dataDir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = benchServerEnv({
    databaseUrl: ADMIN_URL.replace(/\/[^/]*$/, `/${db}`),
    dataDir,
    port,
    extra: {
      CAPSTAN_RUNNER_SANDBOX: mode,
      CAPSTAN_WORKER_POLL_MS: "50",
      LOG_LEVEL: "warn",
      CAPSTAN_SESSION_RATE_PER_SEC: "1000000",
      CAPSTAN_SESSION_BURST: "1000000",
    },
  });
  const logFile = path.join(dataDir, "server.log");
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, [path.join(ROOT, "scripts", "start.mjs")], {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  let exited = false;
  child.once("exit", () => (exited = true));
  const until = Date.now() + 600_000;
  while (
    !(await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (exited || Date.now() > until) {
      stopGroup(child);
      await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
      const tail = readFileSync(logFile, "utf8")
        .split("\n")
        .filter((l) => /sandbox|gvisor|gVisor|runsc|bubblewrap|Error/.test(l))
        .slice(-3)
        .join(" | ");
      return {
        mode,
        reason: (tail || `the server ${exited ? "exited" : "did not become ready"}; log ${logFile}`).slice(0, 500),
      };
    }
    await sleep(250);
  }
  // The bootstrap owner's token, issued on this server's database with its keys (a process of its own: the services read the env once).
  const token = execFileSync(
    process.execPath,
    ["--import", "tsx", path.join(import.meta.dirname, "lib", "issue-token.ts")],
    { cwd: ROOT, env: env as NodeJS.ProcessEnv, encoding: "utf8" },
  )
    .trim()
    .split("\n")
    .pop()!;
  const rest = restClient(base, token);
  const ws = (await rest("POST", "/v1/workspaces", { name: `bench ${mode}` })).id as string;
  const intake = await rest("POST", `/v1/workspaces/${ws}/products`, {
    repo_url: `file://${repo}`,
    ref: "main",
    auth: { kind: "none" },
  });
  let freeze = { status: "pending", revision: { id: "" } };
  while (freeze.status === "pending") {
    await sleep(100);
    freeze = await rest("GET", `/v1/workspaces/${ws}/source-freezes/${intake.source_freeze_id}`);
  }
  if (freeze.status !== "frozen") throw new Error(`${mode}: freeze ended ${freeze.status}`);
  await rest(
    "POST",
    `/v1/workspaces/${ws}/products/${intake.product_id}/revisions/${freeze.revision.id}/descriptor:confirm`,
    { edits: { build_plan: { health: { path: "/health" } } } },
  );
  const side = { mode, base, port, child, db, rest, token, ws, rev: freeze.revision.id } as TSide;
  const first = await deployAndWait(side, "default");
  if (first.dep.status !== "active")
    throw new Error(`${mode}: the deployment ended ${first.dep.status}: ${JSON.stringify(first.dep.findings)}`);
  side.dep = first.dep;
  side.session = (await rest("POST", "/v1/sessions", { surface_id: first.dep.surface_id })).id;
  console.log(
    `bench: ${mode}: deployment ${first.dep.id} active in ${Math.round(first.ms)} ms (isolation ${JSON.stringify({ sandbox: first.dep.isolation.sandbox, enforced: first.dep.isolation.enforced })})`,
  );
  return side;
}

/** POST a deployment and poll until it leaves planned/applying: the cold start as a user sees it. */
async function deployAndWait(s: TSide, slot: string) {
  const started = performance.now();
  let dep = await s.rest("POST", `/v1/workspaces/${s.ws}/revisions/${s.rev}/deployments`, {
    environment_type: "preview",
    slot,
  });
  while (dep.status === "planned" || dep.status === "applying") {
    await sleep(25);
    dep = await s.rest("GET", `/v1/workspaces/${s.ws}/deployments/${dep.id}`);
  }
  return { dep, ms: performance.now() - started };
}

function makeRepo(dir: string): string {
  mkdirSync(dir);
  writeFileSync(
    path.join(dir, "server.js"),
    readFileSync(path.join(ROOT, "test", "fixtures", "hosted-app.js"), "utf8"),
  );
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "app", version: "1.0.0", scripts: { start: "node server.js" } }),
  );
  writeFileSync(
    path.join(dir, "package-lock.json"),
    JSON.stringify({
      name: "app",
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: { "": { name: "app", version: "1.0.0" } },
    }),
  );
  const git = (...a: string[]) =>
    execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.test", ...a], { cwd: dir });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "bench");
  return dir;
}

type TTarget = {
  name: string;
  port: number;
  path: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  check: (status: number, body: string) => boolean;
};
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function once(t: TTarget): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers = t.body ? { ...t.headers, "content-length": String(Buffer.byteLength(t.body)) } : t.headers;
    const req = http.request(
      { host: "127.0.0.1", port: t.port, path: t.path, method: t.method, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          t.check(res.statusCode ?? 0, Buffer.concat(chunks).toString("utf8"))
            ? resolve(performance.now() - started)
            : reject(new Error(`${t.name}: ${res.statusCode} ${Buffer.concat(chunks).toString("utf8").slice(0, 300)}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(t.body);
  });
}

/** Latency of each target, interleaved in rounds; then requests/s of each with autocannon. */
async function measure(targets: TTarget[], n: number) {
  for (const t of targets) for (let i = 0; i < Math.min(100, n / 10); i++) await once(t);
  const samples: Record<string, number[]> = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let r = 0; r < ROUNDS; r++)
    for (const t of targets) for (let i = 0; i < n / ROUNDS; i++) samples[t.name]!.push(await once(t));
  const rps: Record<string, { per_sec: number; non_2xx: number }> = {};
  for (const t of targets) {
    const res = await autocannon({
      url: `http://127.0.0.1:${t.port}${t.path}`,
      method: t.method,
      headers: t.headers,
      body: t.body,
      connections: CONNECTIONS,
      duration: DURATION,
    });
    rps[t.name] = { per_sec: Math.round(res.requests.average), non_2xx: res.non2xx };
  }
  return { latency_ms: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, lat(v)])), throughput: rps };
}

const sides: TSide[] = [];
const unavailable: TUnavailable[] = [];
for (const mode of MODES) {
  const s = await startMode(mode);
  if ("reason" in s) {
    console.log(`bench: ${mode} unavailable: ${s.reason}`);
    unavailable.push(s);
  } else sides.push(s);
}
const cleanup = () => sides.forEach((s) => stopGroup(s.child));
process.on("exit", cleanup);
if (!sides.length) throw new Error(`no mode could run: ${JSON.stringify(unavailable)}`);

// Cold starts, interleaved across the modes (one at a time, so they do not compete).
const cold: Record<string, number[]> = Object.fromEntries(sides.map((s) => [s.mode, []]));
const coldFailed: Record<string, string[]> = Object.fromEntries(sides.map((s) => [s.mode, []]));
for (let i = 0; i < COLD; i++) {
  for (const s of sides) {
    const { dep, ms } = await deployAndWait(s, `cold-${i}`);
    if (dep.status === "active") cold[s.mode]!.push(ms);
    else coldFailed[s.mode]!.push(`${dep.status}: ${dep.reason_code}`);
    await s.rest("POST", `/v1/workspaces/${s.ws}/deployments/${dep.id}:stop`);
  }
}
console.log(
  `bench: cold starts ${JSON.stringify(Object.fromEntries(Object.entries(cold).map(([k, v]) => [k, lat(v)])))}`,
);

// The direct peer: the same app as a plain process on a loopback port.
const directPort = await freePort();
const direct = spawn(process.execPath, [path.join(repo, "server.js")], {
  env: { PATH: process.env.PATH!, PORT: String(directPort), NODE_ENV: "production" },
  stdio: "ignore",
});
process.on("exit", () => direct.kill());
for (
  let i = 0;
  !(await fetch(`http://127.0.0.1:${directPort}/health`).then(
    (r) => r.ok,
    () => false,
  ));
  i++
) {
  if (i > 200) throw new Error("the direct app did not start");
  await sleep(50);
}
const ok200 = (status: number) => status === 200;
const surface = await measure(
  [
    { name: "direct", port: directPort, path: "/hello", method: "GET", headers: {}, check: ok200 },
    ...sides.map((s): TTarget => ({
      name: s.mode,
      port: s.port,
      path: `/s/${s.dep.surface_id}/hello`,
      method: "GET",
      headers: {},
      check: ok200,
    })),
  ],
  LATENCY_N,
);
console.log(`bench: surface proxy ${JSON.stringify(surface)}`);

const invokeBody = JSON.stringify({ kind: "http_request", method: "GET", path: "/hello", body_evidence: null });
const admitted = (status: number, body: string) => {
  if (status !== 201) return false;
  const j = JSON.parse(body);
  return j.admission?.outcome === "admitted" && j.execution?.result?.http_status === 200;
};
const invocations = await measure(
  [
    { name: "direct", port: directPort, path: "/hello", method: "GET", headers: {}, check: ok200 },
    ...sides.map((s): TTarget => ({
      name: s.mode,
      port: s.port,
      path: `/v1/sessions/${s.session}/invocations`,
      method: "POST",
      body: invokeBody,
      headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
      check: admitted,
    })),
  ],
  Math.max(100, Math.round(LATENCY_N / 10)),
);
console.log(`bench: invocations ${JSON.stringify(invocations)}`);

const added = (m: { latency_ms: Record<string, { p50: number; p99: number }> }, mode: string) => ({
  p50: Math.round((m.latency_ms[mode]!.p50 - m.latency_ms.direct!.p50) * 1000) / 1000,
  p99: Math.round((m.latency_ms[mode]!.p99 - m.latency_ms.direct!.p99) * 1000) / 1000,
});
const out = {
  date: new Date().toISOString(),
  machine: machine(pgVersion),
  server:
    "npm start (production build, workers in-process), one server and fresh PostgreSQL database per mode, all running at once",
  method:
    "cold start = POST deployment -> status active, polled every 25 ms, modes interleaved one deployment at a time; latency sequential over keep-alive, targets interleaved in rounds; added = the mode's percentile minus the direct peer's in the same run; requests/s with autocannon",
  modes: Object.fromEntries(
    sides.map((s) => [
      s.mode,
      {
        isolation: s.dep.isolation,
        cold_start_ms: {
          ...lat(cold[s.mode]!),
          min: Math.round(Math.min(...cold[s.mode]!)),
          max: Math.round(Math.max(...cold[s.mode]!)),
          failed: coldFailed[s.mode],
        },
        surface_proxy: {
          latency_ms: surface.latency_ms[s.mode],
          added_latency_ms: added(surface, s.mode),
          requests_per_sec: surface.throughput[s.mode],
        },
        invocation: {
          latency_ms: invocations.latency_ms[s.mode],
          added_latency_ms: added(invocations, s.mode),
          admitted_per_sec: invocations.throughput[s.mode],
        },
      },
    ]),
  ),
  direct: { surface_latency_ms: surface.latency_ms.direct, requests_per_sec: surface.throughput.direct },
  unavailable,
  settings: {
    cold_starts: COLD,
    latency_requests: LATENCY_N,
    invocation_requests: Math.max(100, Math.round(LATENCY_N / 10)),
    connections: CONNECTIONS,
    seconds: DURATION,
  },
};
console.log(JSON.stringify(out.modes, null, 2));
const file = path.join(ROOT, "bench", "results", "isolation.json");
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, JSON.stringify(out, null, 2) + "\n");
console.log("bench: wrote bench/results/isolation.json");

for (const s of sides)
  await s.rest("POST", `/v1/workspaces/${s.ws}/deployments/${s.dep.id}:stop`).catch(() => undefined);
direct.kill();
cleanup();
await sleep(2_000);
for (const s of sides) await admin.query(`DROP DATABASE IF EXISTS ${s.db} WITH (FORCE)`).catch(() => undefined);
await admin.end();
rmSync(dataRoot, { recursive: true, force: true });
process.exit(0);
