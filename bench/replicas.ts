/**
 * `npm run bench` (part): Bridge data.kv throughput and per-request server CPU
 * with one and with two web replicas behind a round-robin, written to
 * bench/results/replicas.json (issue #23: the second replica must cost no
 * correctness and no more than 10% per-request CPU).
 *
 * Each replica is a real server process (test/support/app-server.ts: the
 * framework-free Bridge handler behind node:http, CAPSTAN_ROLES=web) with a
 * data folder of its own, on one fresh PostgreSQL database. A round-robin
 * proxy in this process (keep-alive pools) spreads autocannon's requests;
 * the same proxy fronts the one-replica run, so the two figures compare.
 * Server CPU is read from /proc/<pid>/stat of the replicas only (user +
 * system), divided by the requests they answered. On 2 cores shared with
 * the load generator expect little throughput gain: read the ratios.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { cpuMs } from "./lib/proc";

const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROOT = path.resolve(import.meta.dirname, "..");

const dbName = `capstan_bench_replicas_${Date.now()}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "capstan-bench-replicas-"));
const shared = {
  DATABASE_URL: ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`),
  CAPSTAN_MASTER_KEY: randomBytes(32).toString("base64"),
  SOURCE_ALLOW_LOCAL: "1",
  CAPSTAN_BRIDGE_RATE_PER_SEC: "1000000",
  CAPSTAN_BRIDGE_BURST: "1000000",
  LOG_LEVEL: "error",
  DATABASE_POOL_SIZE: "10",
};
Object.assign(process.env, shared, { CAPSTAN_DATA_DIR: dataDir });

const { getDb, closeDb, db } = await import("../src/server/platform/db/client");
const { ensureSigningKey } = await import("../src/server/domain/signing-keys/jwt.service");
const { newId } = await import("../src/server/platform/ids");
const { createUser } = await import("../src/server/domain/identity/users.service");
const { createWorkspace } = await import("../src/server/domain/workspaces/workspaces.service");
const { createProduct } = await import("../src/server/domain/source/products.service");
const { processPendingFreezes } = await import("../src/server/domain/source/freeze.service");
const { confirmDescriptor } = await import("../src/server/domain/source/revisions.service");
const { createServiceIdentity, workspaceScope } =
  await import("../src/server/domain/service-identities/service-identities.service");
const { clientCredentialsGrant } = await import("../src/server/domain/service-identities/token.service");
const { setPlan } = await import("../src/server/domain/usage/plan.service");

await getDb();
await ensureSigningKey();
const user = await createUser(
  { userId: null, correlationId: newId("evt") },
  { email: "bench@example.test", name: "Bench", password: "bench-password-123" },
);
const caller = { userId: user.id, correlationId: newId("evt") };
const ws = await createWorkspace(caller, "bench-replicas");
await setPlan(caller, ws.id, "team");
const repo = path.join(dataDir, "repo");
mkdirSync(repo);
writeFileSync(path.join(repo, "package.json"), JSON.stringify({ name: "bench", scripts: { start: "node s.js" } }));
writeFileSync(path.join(repo, "package-lock.json"), "{}");
writeFileSync(
  path.join(repo, "capabilities.json"),
  JSON.stringify({
    capabilities: [
      {
        id: "data.kv",
        required: true,
        actions: ["get", "set"],
        scope: { prefix: "/bench", max_value_bytes: 1024, max_keys: 1000 },
        credential_owner: "platform",
        provider: { allow: ["platform"], fallback: "none" },
      },
    ],
  }),
);
const git = (...a: string[]) =>
  execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.test", ...a], { cwd: repo });
git("init", "-q", "-b", "main");
git("add", "-A");
git("commit", "-q", "-m", "bench");
const intake = await createProduct(caller, ws.id, { repo_url: `file://${repo}`, ref: "main" });
await processPendingFreezes(1);
const rev = await db().revision.findFirstOrThrow({ where: { productId: intake.product_id } });
await confirmDescriptor({ ...caller, role: "owner" }, ws.id, intake.product_id, rev.id, {});
const svc = await createServiceIdentity(caller, workspaceScope(ws.id), {
  name: "bench",
  product_id: intake.product_id,
});
const { access_token: token } = await clientCredentialsGrant(svc.id, svc.client_secret);
const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

type TReplica = { child: ChildProcess; port: number; out: string };
function startReplica(): Promise<TReplica> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "test", "support", "app-server.ts")], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        ...shared,
        CAPSTAN_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "capstan-bench-web-")),
        CAPSTAN_ROLES: "web",
        CAPSTAN_WORKERS: "0",
        PORT: "0",
        NODE_ENV: "production",
      },
    });
    const r: TReplica = { child, port: 0, out: "" };
    child.stdout.on("data", (c: Buffer) => {
      r.out += c.toString();
      const m = /^listening (\d+)$/m.exec(r.out);
      if (m && !r.port) {
        r.port = Number(m[1]);
        resolve(r);
      }
    });
    child.stderr.on("data", (c: Buffer) => (r.out += c.toString()));
    child.once("exit", (code) => {
      if (!r.port) reject(new Error(`replica exited ${code}: ${r.out}`));
    });
  });
}

/** A round-robin HTTP proxy over keep-alive pools, counting what each replica answered. */
function roundRobin(replicas: TReplica[]) {
  const agents = replicas.map(() => new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS * 2 }));
  const answered = replicas.map(() => 0);
  let i = 0;
  const server = http.createServer((req, res) => {
    const k = i++ % replicas.length;
    const up = http.request(
      {
        host: "127.0.0.1",
        port: replicas[k]!.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: agents[k],
      },
      (answer) => {
        answered[k]!++;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on("error", () => {
      res.writeHead(502).end();
    });
    req.pipe(up);
  });
  return {
    server,
    answered,
    close: () => {
      server.close();
      for (const a of agents) a.destroy();
    },
  };
}

async function run(replicas: TReplica[]) {
  const rr = roundRobin(replicas);
  await new Promise<void>((r) => rr.server.listen(0, "127.0.0.1", r));
  const port = (rr.server.address() as { port: number }).port;
  // Warm-up (JIT, pools, caches on every replica).
  await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: 2,
    requests: [
      { method: "POST", path: "/v1/capabilities/data.kv/get", headers, body: JSON.stringify({ key: "/bench/k" }) },
    ],
  });
  rr.answered.fill(0);
  const before = replicas.map((r) => cpuMs(r.child.pid!));
  let non2xx = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [
      { method: "POST", path: "/v1/capabilities/data.kv/get", headers, body: JSON.stringify({ key: "/bench/k" }) },
    ],
  });
  non2xx = result.non2xx;
  const cpu = replicas.map((r, k) => cpuMs(r.child.pid!) - before[k]!);
  const requests = rr.answered.reduce((a, b) => a + b, 0);
  rr.close();
  return {
    replicas: replicas.length,
    requests_per_sec: Math.round(result.requests.average),
    latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
    non_2xx: non2xx,
    answered_per_replica: [...rr.answered],
    server_cpu_ms_total: Math.round(cpu.reduce((a, b) => a + b, 0)),
    server_cpu_ms_per_request: Number((cpu.reduce((a, b) => a + b, 0) / Math.max(1, requests)).toFixed(3)),
  };
}

const a = await startReplica();
const b = await startReplica();
await fetch(`http://127.0.0.1:${a.port}/v1/capabilities/data.kv/set`, {
  method: "POST",
  headers,
  body: JSON.stringify({ key: "/bench/k", value: { hello: "world" } }),
});
try {
  const one = await run([a]);
  const two = await run([a, b]);
  const results = {
    measured_at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, load_average_1m: Number(os.loadavg()[0]!.toFixed(2)), node: process.version },
    settings: {
      duration_s: DURATION,
      connections: CONNECTIONS,
      scenario:
        "POST /v1/capabilities/data.kv/get through a round-robin proxy; Bridge rate limit off; per-process limits (no Redis)",
    },
    one_replica: one,
    two_replicas: two,
    ratios: {
      throughput_two_over_one: Number((two.requests_per_sec / Math.max(1, one.requests_per_sec)).toFixed(2)),
      cpu_per_request_two_over_one: Number(
        (two.server_cpu_ms_per_request / Math.max(0.001, one.server_cpu_ms_per_request)).toFixed(2),
      ),
    },
  };
  console.log(JSON.stringify(results, null, 2));
  mkdirSync(path.join(import.meta.dirname, "results"), { recursive: true });
  writeFileSync(path.join(import.meta.dirname, "results", "replicas.json"), JSON.stringify(results, null, 2) + "\n");
  console.log("wrote bench/results/replicas.json");
} finally {
  for (const r of [a, b]) r.child.kill("SIGTERM");
  await closeDb();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
}
