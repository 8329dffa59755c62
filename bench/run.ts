/**
 * `npm run bench`: Bridge overhead and throughput, written to bench/results/latest.json.
 *
 * Scenarios (each against a real node:http server wrapping the framework-free
 * Bridge handler, on a fresh PostgreSQL database):
 *  - data.kv get   (the platform provider in PostgreSQL)
 *  - ai.generate   (against a loopback OpenAI-compatible server)
 * Overhead is what the Bridge reports in Capstan-Overhead-Ms (time in Capstan
 * excluding the provider wait), so production and the benchmark measure the
 * same thing. The load generator (autocannon) runs in this process too; on 2
 * cores read the figures as ratios, not absolutes.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";

const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

const dbName = `capstan_bench_${Date.now()}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "capstan-bench-"));
Object.assign(process.env, {
  DATABASE_URL: ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`),
  CAPSTAN_DATA_DIR: dataDir,
  CAPSTAN_MASTER_KEY: randomBytes(32).toString("base64"),
  SOURCE_ALLOW_LOCAL: "1",
  CAPSTAN_PROVIDER_ALLOW_PRIVATE: "1",
  CAPSTAN_BRIDGE_RATE_PER_SEC: "1000000",
  CAPSTAN_BRIDGE_BURST: "1000000",
  CAPSTAN_WEBHOOK_ALLOW_PRIVATE: "1",
  LOG_LEVEL: "error",
  DATABASE_POOL_SIZE: "20",
});

const { getDb, closeDb } = await import("../src/server/platform/db/client");
const { ensureSigningKey } = await import("../src/server/platform/jwt");
const { newId } = await import("../src/server/platform/ids");
const { createUser } = await import("../src/server/domain/identity/users.service");
const { createWorkspace } = await import("../src/server/domain/workspaces/workspaces.service");
const { createProduct } = await import("../src/server/domain/source/products.service");
const { processPendingFreezes } = await import("../src/server/domain/source/freeze.service");
const { confirmDescriptor } = await import("../src/server/domain/source/revisions.service");
const { createServiceIdentity, workspaceScope } = await import("../src/server/domain/service-identities/service-identities.service");
const { clientCredentialsGrant } = await import("../src/server/domain/service-identities/token.service");
const { createCredential } = await import("../src/server/domain/credentials/credentials.service");
const { createBinding } = await import("../src/server/domain/credentials/bindings.service");
const { handleBridge } = await import("../src/server/bridge/handler");
const { setPlan } = await import("../src/server/domain/usage/plan.service");

await getDb();
await ensureSigningKey();
const user = await createUser({ userId: null, correlationId: newId("evt") }, { email: "bench@example.test", name: "Bench", password: "bench-password-123" });
const caller = { userId: user.id, correlationId: newId("evt") };
const ws = await createWorkspace(caller, "bench");
await setPlan(caller, ws.id, "team");

// A product whose contract allows data.kv and ai.generate, frozen from a local repository.
const repo = path.join(dataDir, "repo");
mkdirSync(repo);
writeFileSync(path.join(repo, "package.json"), JSON.stringify({ name: "bench", scripts: { start: "node s.js" } }));
writeFileSync(path.join(repo, "package-lock.json"), "{}");
writeFileSync(path.join(repo, "capabilities.json"), JSON.stringify({ capabilities: [
  { id: "data.kv", required: true, actions: ["get", "set"], scope: { prefix: "/bench", max_value_bytes: 1024, max_keys: 1000 }, credential_owner: "platform", provider: { allow: ["platform"], fallback: "none" } },
  { id: "ai.generate", required: false, actions: ["generate"], scope: { models: ["text"], max_tokens_per_call: 64 }, credential_owner: "workspace", provider: { allow: ["local"], fallback: "none" } },
] }));
const git = (...a: string[]) => execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.test", ...a], { cwd: repo });
git("init", "-q", "-b", "main"); git("add", "-A"); git("commit", "-q", "-m", "bench");
const intake = await createProduct(caller, ws.id, { repo_url: `file://${repo}`, ref: "main" });
await processPendingFreezes(1);
const { db } = await import("../src/server/platform/db/client");
const rev = await db().revision.findFirstOrThrow({ where: { productId: intake.product_id } });
await confirmDescriptor({ ...caller, role: "owner" }, ws.id, intake.product_id, rev.id, {});

// Loopback OpenAI-compatible provider.
const provider = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ choices: [{ message: { content: "ok" } }], usage: { total_tokens: 12 } }));
  });
});
await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));
const providerPort = (provider.address() as { port: number }).port;
const cred = await createCredential(caller, ws.id, {
  secret: "bench-provider-key-0123456789", provider: "local", capability: "ai.generate", actions: ["generate"], scope: ["*"],
  expires_at: new Date(Date.now() + 86_400_000).toISOString(),
});
await createBinding(caller, ws.id, {
  credential_id: cred.id, capability: "ai.generate", actions: ["generate"], scope: ["*"], budget: { units: 1e12, unit: "tokens" },
  capability_scope: { id: "ai.generate", scope: { models: ["text"], max_tokens_per_call: 64 }, provider_models: { text: "bench-model", embedding: "bench-embed" } },
  provider_config: { base_url: `http://127.0.0.1:${providerPort}/v1` },
} as never);

const svc = await createServiceIdentity(caller, workspaceScope(ws.id), { name: "bench", product_id: intake.product_id });
const { access_token: token } = await clientCredentialsGrant(svc.id, svc.client_secret);

// The Bridge behind plain node:http (as a Next route handler it is the same function).
// eslint-disable-next-line @typescript-eslint/no-misused-promises -- a bench harness: a failure ends the run
const server = http.createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const [, , , capability, action] = (req.url ?? "").split("/");
  const response = await handleBridge(
    new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) }),
    capability!, action!,
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const port = (server.address() as { port: number }).port;
const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

await fetch(`http://127.0.0.1:${port}/v1/capabilities/data.kv/set`, { method: "POST", headers, body: JSON.stringify({ key: "/bench/k", value: { hello: "world" } }) });

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
}

async function scenario(name: string, urlPath: string, body: unknown) {
  const overheads: number[] = [];
  let non2xx = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [
      {
        method: "POST",
        path: urlPath,
        headers,
        body: JSON.stringify(body),
        onResponse: (_status: number, _body: string, _ctx: unknown, h: Record<string, string>) => {
          const v = h["capstan-overhead-ms"] ?? h["Capstan-Overhead-Ms"];
          if (v !== undefined) overheads.push(Number(v));
        },
      },
    ],
  });
  non2xx = (result as { non2xx: number }).non2xx;
  const r = result as unknown as { requests: { average: number }; latency: { p50: number; p99: number }; requests_total?: number };
  const out = {
    requests_per_sec: Math.round(r.requests.average),
    latency_ms: { p50: r.latency.p50, p99: r.latency.p99 },
    overhead_ms: { p50: pct(overheads, 50), p99: pct(overheads, 99), samples: overheads.length },
    non_2xx: non2xx,
  };
  console.log(name, JSON.stringify(out));
  return out;
}

if (process.env.BENCH_PROFILE) {
  // Sequential calls in-process: the per-call cost without queueing.
  const n = Number(process.env.BENCH_PROFILE);
  for (const [name, capability, action, body] of [
    ["data.kv get", "data.kv", "get", { key: "/bench/k" }],
    ["ai.generate", "ai.generate", "generate", { model_kind: "text", input: { text: "hi" }, max_tokens: 16 }],
  ] as const) {
    const overheads: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const r = await handleBridge(new Request(`http://127.0.0.1/v1/capabilities/${capability}/${action}`, { method: "POST", headers, body: JSON.stringify(body) }), capability, action);
      overheads.push(Number(r.headers.get("capstan-overhead-ms")));
      await r.text();
    }
    console.log(`sequential ${name}: ${((performance.now() - t0) / n).toFixed(2)} ms/call, overhead p50 ${pct(overheads, 50)} ms`);
  }
}

const results = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  duration_s: DURATION,
  connections: CONNECTIONS,
  scenarios: {
    "data.kv get": await scenario("data.kv get", "/v1/capabilities/data.kv/get", { key: "/bench/k" }),
    "ai.generate": await scenario("ai.generate", "/v1/capabilities/ai.generate/generate", { model_kind: "text", input: { text: "hi" }, max_tokens: 16 }),
  },
  targets: { overhead_p50_ms: 2, overhead_p99_ms: 10, kv_get_requests_per_sec: 500 },
};
mkdirSync(path.join(import.meta.dirname, "results"), { recursive: true });
writeFileSync(path.join(import.meta.dirname, "results", "latest.json"), JSON.stringify(results, null, 2) + "\n");
console.log("wrote bench/results/latest.json");

// Let the last responses and off-path writes finish before closing the database.
await new Promise((r) => setTimeout(r, 500));
const { flushRecords } = await import("../src/server/bridge/record");
await flushRecords();
server.close();
provider.close();
await closeDb();
await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
await admin.end();
process.exit(0);
