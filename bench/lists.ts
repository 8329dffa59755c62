/**
 * `npm run bench` (lists): p50 of the list endpoints for a workspace with 1k
 * and one with 1M rows (#16 item 6; docs/decisions.md "Lists at scale"). A
 * fresh PostgreSQL database, migrated; each workspace's rows are seeded with
 * generate_series (audit records, capability invocations, outbox events,
 * webhook deliveries, dead letters), ANALYZEd, and every endpoint is called
 * through the real REST handler (handleRest: routing, auth, validation,
 * service, serialisation) in this process, sequentially and interleaved
 * across the sizes: BENCH_LIST_WARMUP calls, then BENCH_LIST_REQUESTS timed
 * ones per size. Asserts nothing; writes
 * bench/results/lists.json (p50/p99 per endpoint and size, the 1M/1k ratio,
 * and the index each query's plan reads at the largest size).
 * Sizes: BENCH_LIST_SIZES (default "1000,1000000").
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

const ROOT = path.resolve(import.meta.dirname, "..");
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SIZES = (process.env.BENCH_LIST_SIZES ?? "1000,1000000")
  .split(",")
  .map(Number)
  .sort((a, b) => a - b);
const WARMUP = Number(process.env.BENCH_LIST_WARMUP ?? 20);
const REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 200);

const dbName = `capstan_bench_lists_${Date.now()}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
Object.assign(process.env, {
  NODE_ENV: "production",
  DATABASE_URL: ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`),
  CAPSTAN_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "capstan-bench-lists-")),
  CAPSTAN_MASTER_KEY: randomBytes(32).toString("base64"),
  CAPSTAN_WEBHOOK_ALLOW_PRIVATE: "1",
  BOOTSTRAP_ADMIN_EMAIL: "bench@example.test",
  BOOTSTRAP_ADMIN_PASSWORD: "bench-password-123",
  LOG_LEVEL: "error",
});

const { getDb, closeDb, db } = await import("../src/server/platform/db/client");
const { ensureSigningKey } = await import("../src/server/domain/signing-keys/jwt.service");
const { newId } = await import("../src/server/platform/ids");
const { bootstrapPlatform, createUser } = await import("../src/server/domain/identity/users.service");
const { createApiToken } = await import("../src/server/domain/identity/tokens.service");
const { handleRest } = await import("../src/server/http/rest-handler");

await getDb();
await ensureSigningKey();
await bootstrapPlatform(newId("evt"));
const user = await createUser(
  { userId: null, correlationId: newId("evt") },
  { email: "lists@example.test", name: "Bench", password: "correct horse battery staple" },
);
const { token } = await createApiToken(user.id, "bench", 4 * 3600);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function call(method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> {
  const headers = new Headers({ authorization: `Bearer ${token}` });
  if (body !== undefined) headers.set("content-type", "application/json");
  const res = await handleRest(
    new Request(`http://localhost:3000${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

type TWs = { ws: string; wb: string; prodA: string; prodB: string; size: number };
async function workspace(size: number): Promise<TWs> {
  const ws = (await call("POST", "/v1/workspaces", { name: `lists bench ${size}` })).json.id as string;
  const wb = (
    await call("POST", `/v1/workspaces/${ws}/event-subscriptions`, {
      url: "http://127.0.0.1:9/hook",
      event_types: ["*"],
    })
  ).json.id as string;
  const [prodA, prodB] = [newId("prod"), newId("prod")];
  for (const p of [prodA, prodB]) {
    await db().$executeRawUnsafe(
      `INSERT INTO products (id, workspace_id, input_revision_id, repo_url, ref, created_by) VALUES ($1, $2, $3, 'https://example.test/r', 'main', $4)`,
      p,
      ws,
      newId("rev"),
      user.id,
    );
  }
  return { ws, wb, prodA, prodB, size };
}

let nextRow = 1;
/** `w.size` rows in every seeded table of workspace w; created_at one second apart back from now. Ids continue across workspaces. */
async function seed(w: TWs): Promise<void> {
  const from = nextRow;
  const to = nextRow + w.size;
  nextRow = to;
  const { ws, wb, prodA, prodB } = w;
  const q = (sql: string) => db().$executeRawUnsafe(sql, ws, from, to - 1, prodA, prodB, wb);
  // Audit: 5 actions (none is member.role_changed: the "no match" case), 10 actors, 10 targets.
  await q(`INSERT INTO audit_records (id, workspace_id, seq, action, actor_id, actor_kind, target_id, correlation_id, details, prev_hash, hash, created_at)
    SELECT 'aud_0' || lpad(to_hex(g), 25, '0'), $1, 1000000000 + g,
           (ARRAY['plan.changed','budget.changed','product.created','credential.created','deployment.requested'])[1 + g % 5],
           'usr_0' || lpad(to_hex(g % 10), 25, '0'), 'user', 'prod_0' || lpad(to_hex(g % 10), 25, '0'), 'evt_0' || lpad(to_hex(g), 25, '0'),
           '{}'::jsonb, md5(g::text) || md5('p' || g), md5('h' || g) || md5(g::text), now() - make_interval(secs => g - $2::int)
      FROM generate_series($2::int, $3::int) g WHERE $4::text IS NOT NULL AND $5::text IS NOT NULL AND $6::text IS NOT NULL`);
  // Invocations: 90 % completed, 5 % denied, 5 % failed; 3 capabilities; product B holds 5 % of them.
  await q(`INSERT INTO capability_invocations (id, workspace_id, product_id, capability, action, outcome, usage_unit, request_summary, correlation_id, requested_at, created_at)
    SELECT 'cap_0' || lpad(to_hex(g), 25, '0'), $1, CASE WHEN g % 20 = 0 THEN $5 ELSE $4 END,
           (ARRAY['ai.generate','data.kv','storage.object'])[1 + g % 3], 'get',
           CASE WHEN g % 20 = 1 THEN 'denied' WHEN g % 20 = 2 THEN 'failed' ELSE 'completed' END,
           'calls', jsonb_build_object('sha256', md5(g::text) || md5('r' || g), 'size_bytes', 42, 'request', jsonb_build_object('key', 'k')),
           'evt_0' || lpad(to_hex(g), 25, '0'), now() - make_interval(secs => g - $2::int), now() - make_interval(secs => g - $2::int)
      FROM generate_series($2::int, $3::int) g WHERE $6::text IS NOT NULL`);
  await q(`INSERT INTO outbox_events (id, workspace_id, type, version, source, subject, correlation_id, data, dispatched_at, created_at)
    SELECT 'evt_1' || lpad(to_hex(g), 25, '0'), $1, 'plan.changed', '1.0.0', '/v1/workspaces/' || $1, 'x', 'evt_x', '{}'::jsonb, now(), now() - make_interval(secs => g - $2::int)
      FROM generate_series($2::int, $3::int) g WHERE $4::text IS NOT NULL AND $5::text IS NOT NULL AND $6::text IS NOT NULL`);
  await q(`INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, status, attempt_count, next_attempt_at, created_at)
    SELECT 'whk_0' || lpad(to_hex(g), 25, '0'), $1, $6, 'evt_1' || lpad(to_hex(g), 25, '0'), 'dead', 8, now(), now() - make_interval(secs => g - $2::int)
      FROM generate_series($2::int, $3::int) g WHERE $4::text IS NOT NULL AND $5::text IS NOT NULL`);
  await q(`INSERT INTO dead_letters (id, workspace_id, delivery_id, subscription_id, event_id, event_type, attempts, created_at)
    SELECT 'dlq_0' || lpad(to_hex(g), 25, '0'), $1, 'whk_0' || lpad(to_hex(g), 25, '0'), $6, 'evt_1' || lpad(to_hex(g), 25, '0'), 'plan.changed', 8,
           now() - make_interval(secs => g - $2::int)
      FROM generate_series($2::int, $3::int) g WHERE $4::text IS NOT NULL AND $5::text IS NOT NULL`);
}

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
const ENDPOINTS: [name: string, url: (w: TWs) => string][] = [
  ["audit", (w) => `/v1/workspaces/${w.ws}/audit-records`],
  ["audit ?action (matches 1/5)", (w) => `/v1/workspaces/${w.ws}/audit-records?action=plan.changed`],
  ["audit ?action (no match)", (w) => `/v1/workspaces/${w.ws}/audit-records?action=member.role_changed`],
  ["audit ?actor_id (1/10)", (w) => `/v1/workspaces/${w.ws}/audit-records?actor_id=usr_0${"7".padStart(25, "0")}`],
  ["audit ?target_id (1/10)", (w) => `/v1/workspaces/${w.ws}/audit-records?target_id=prod_0${"7".padStart(25, "0")}`],
  [
    "audit ?since&until (5 minutes)",
    (w) => `/v1/workspaces/${w.ws}/audit-records?since=${minutesAgo(12)}&until=${minutesAgo(7)}`,
  ],
  ["capability invocations", (w) => `/v1/workspaces/${w.ws}/capability-invocations`],
  ["capability invocations ?outcome=denied", (w) => `/v1/workspaces/${w.ws}/capability-invocations?outcome=denied`],
  [
    "capability invocations ?product_id (5 %)",
    (w) => `/v1/workspaces/${w.ws}/capability-invocations?product_id=${w.prodB}`,
  ],
  ["capability invocations ?capability", (w) => `/v1/workspaces/${w.ws}/capability-invocations?capability=data.kv`],
  ["dead letters", (w) => `/v1/workspaces/${w.ws}/outbox/dead-letters`],
  ["deliveries of a subscription", (w) => `/v1/workspaces/${w.ws}/event-subscriptions/${w.wb}/deliveries`],
];

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

// One workspace per size in the same database, measured interleaved (one call each in turn), so the
// load of a shared machine hits every size alike.
const spaces: TWs[] = [];
for (const size of SIZES) {
  const w = await workspace(size);
  const t0 = performance.now();
  await seed(w);
  console.log(`seeded ${size} rows per table in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  spaces.push(w);
}
await db().$executeRawUnsafe(`ANALYZE`);

type TFigure = { p50_ms: number; p99_ms: number; items: number };
const results: Record<string, Record<string, TFigure>> = {};
for (const [name, url] of ENDPOINTS) {
  const times = spaces.map(() => [] as number[]);
  const items = spaces.map(() => 0);
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    for (const [k, w] of spaces.entries()) {
      const t = performance.now();
      const r = await call("GET", url(w));
      const ms = performance.now() - t;
      if (r.status !== 200) throw new Error(`${name}: ${r.status} ${JSON.stringify(r.json)}`);
      items[k] = r.json.items.length;
      if (i >= WARMUP) times[k]!.push(ms);
    }
  }
  for (const [k, w] of spaces.entries()) {
    const sorted = times[k]!.sort((a, b) => a - b);
    (results[name] ??= {})[String(w.size)] = {
      p50_ms: +pct(sorted, 50).toFixed(2),
      p99_ms: +pct(sorted, 99).toFixed(2),
      items: items[k]!,
    };
    console.log(
      `${String(w.size).padStart(8)}  ${name.padEnd(44)} p50 ${pct(sorted, 50).toFixed(2)} ms  p99 ${pct(sorted, 99).toFixed(2)} ms  (${items[k]} items)`,
    );
  }
}

// The plan of the main query behind each filtered list, at the largest size.
const largest = spaces[spaces.length - 1]!;
const explain = async (sql: string) =>
  (await db().$queryRawUnsafe<{ "QUERY PLAN": string }[]>(`EXPLAIN ${sql}`, largest.ws))
    .map((r) => r["QUERY PLAN"])
    .join("\n")
    .match(/\w+_idx|Seq Scan/g) ?? [];
const plans = {
  "audit ?action (no match)": await explain(
    `SELECT * FROM audit_records WHERE workspace_id = $1 AND action = 'member.role_changed' ORDER BY created_at DESC, id DESC LIMIT 51`,
  ),
  "capability invocations ?outcome=denied": await explain(
    `SELECT * FROM capability_invocations WHERE workspace_id = $1 AND outcome = 'denied' ORDER BY created_at DESC, id DESC LIMIT 51`,
  ),
};

const small = String(SIZES[0]);
const large = String(SIZES[SIZES.length - 1]);
const table = Object.fromEntries(
  Object.entries(results).map(([name, bySize]) => [
    name,
    { ...bySize, ratio_p50: +(bySize[large]!.p50_ms / bySize[small]!.p50_ms).toFixed(2) },
  ]),
);
const out = {
  generated_at: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    load_avg_1m: os.loadavg()[0],
    node: process.version,
  },
  method: `REST handler in process, sequential; one workspace per size in one database (rows per seeded table: ${SIZES.join(", ")}), calls interleaved across sizes; ${WARMUP} warm-up + ${REQUESTS} timed calls per endpoint and size`,
  goal: "p50 at the largest size within 2x of the smallest",
  endpoints: table,
  plans,
};
mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
writeFileSync(path.join(ROOT, "bench", "results", "lists.json"), JSON.stringify(out, null, 2) + "\n");
console.log(`wrote bench/results/lists.json`);

await closeDb();
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.end();
process.exit(0);
