import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api } from "./support/api";
import { bootBridgeApp, kvCapability, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";
import { freePort, killGroup, start, status, until, type TProc } from "./support/procs";
import { startServer, stopServer, type TServer } from "./support/spawn-server";

/**
 * Capstan through a real PgBouncer (Debian's 1.18) in transaction mode
 * (issue #35 item 3): a server process and a worker process with
 * DATABASE_URL = PgBouncer, DATABASE_PGBOUNCER=1 (no named prepared
 * statements, no startup options: PgBouncer here is configured to refuse
 * `options`, so sending it would fail the connection) and DATABASE_DIRECT_URL
 * for LISTEN, the instance lock and migrations.
 *  (a) Bridge calls (data.kv, 40 of them 20 at a time), the invocation list
 *      and a webhook delivered by the worker all work;
 *  (b) with PgBouncer's server connections all taken by open transactions,
 *      calls wait query_wait_timeout (2 s) and are answered 503 problems
 *      with Retry-After, never 500; every call answered 200 is recorded
 *      (its invocation row and its value), and once the connections free up
 *      calls succeed again.
 */
process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "1";
resetEnvCache();
const ROOT = path.resolve(import.meta.dirname, "..");
const PGBOUNCER = "/usr/sbin/pgbouncer";
const POOL = 4;
// Skipped only on embedded PGlite (CAPSTAN_TEST_DB=pglite); on PostgreSQL a missing PgBouncer is a failure, not a skip.
const postgres = !!process.env.DATABASE_URL;

let bouncer: ChildProcess | undefined;
let bouncerUrl = "";
let server: TServer | undefined;
let worker: TProc | undefined;
let workerProbe = "";
let s: TBridgeSetup;

async function startBouncer(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "capstan-pgbouncer-"));
  chmodSync(dir, 0o755);
  const direct = new URL(process.env.DATABASE_URL!);
  const port = await freePort();
  const ini = path.join(dir, "pgbouncer.ini");
  writeFileSync(
    ini,
    [
      "[databases]",
      `* = host=${direct.hostname} port=${direct.port || 5432} user=${decodeURIComponent(direct.username) || "postgres"}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = any",
      "pool_mode = transaction",
      `default_pool_size = ${POOL}`,
      "max_client_conn = 200",
      "query_wait_timeout = 2",
      // Not `options`: Capstan must not send startup options through PgBouncer.
      "ignore_startup_parameters = extra_float_digits",
    ].join("\n") + "\n",
  );
  chmodSync(ini, 0o644);
  // PgBouncer refuses to run as root: drop to the postgres user then.
  const args = process.getuid?.() === 0 ? ["-u", "postgres", ini] : [ini];
  bouncer = spawn(PGBOUNCER, args, { stdio: ["ignore", "pipe", "pipe"] });
  const out: string[] = [];
  bouncer.stderr!.on("data", (c: Buffer) => out.push(c.toString()));
  bouncer.stdout!.on("data", (c: Buffer) => out.push(c.toString()));
  const u = new URL(process.env.DATABASE_URL!);
  u.port = String(port);
  bouncerUrl = u.toString();
  await until(
    `pgbouncer to listen\n${out.join("")}`,
    async () => {
      const c = new pg.Client({ connectionString: bouncerUrl });
      return c.connect().then(
        async () => (await c.end(), true),
        () => false,
      );
    },
    15_000,
    100,
  );
}

const call = (action: string, input: unknown) =>
  fetch(`http://127.0.0.1:${server!.port}/v1/capabilities/data.kv/${action}`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
    body: JSON.stringify(input),
  }).then(async (r) => ({
    status: r.status,
    retryAfter: r.headers.get("retry-after"),
    type: r.headers.get("content-type"),
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    json: (await r.json()) as Record<string, any>,
  }));

beforeAll(async () => {
  if (!postgres) return;
  if (!existsSync(PGBOUNCER))
    throw new Error(`${PGBOUNCER} is missing: apt-get install -y pgbouncer (.ci/run installs it)`);
  await startBouncer();
  await bootBridgeApp();
  s = await setupBridge({ capabilities: [kvCapability({ scope: { max_keys: 1000 } })] });
  const viaBouncer = {
    DATABASE_URL: bouncerUrl,
    DATABASE_PGBOUNCER: "1",
    DATABASE_DIRECT_URL: process.env.DATABASE_URL!,
    CAPSTAN_MIGRATE_ON_START: "0",
    DATABASE_CONNECT_TIMEOUT_MS: "3000",
  };
  server = await startServer({ ...viaBouncer, DATABASE_POOL_SIZE: "8" });
  const metricsPort = await freePort();
  workerProbe = `http://127.0.0.1:${metricsPort}`;
  worker = start(process.execPath, ["--import", "tsx", path.join(ROOT, "src/server/workers/main.ts")], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...viaBouncer,
      CAPSTAN_ROLES: "worker",
      CAPSTAN_METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
      CAPSTAN_WORKER_POLL_MS: "100",
      CAPSTAN_WEBHOOK_ALLOW_PRIVATE: "1",
      LOG_LEVEL: "warn",
    },
  });
  await until(
    "the worker through PgBouncer to be ready",
    async () => (await status(`${workerProbe}/readyz`)) === 200,
    60_000,
    200,
  );
}, 180_000);

afterAll(async () => {
  if (server) await stopServer(server);
  killGroup(worker);
  bouncer?.kill("SIGTERM");
});

describe.skipIf(!postgres)("through PgBouncer in transaction mode", () => {
  it("(a) Bridge calls, the invocation list and webhook delivery by a worker work", async () => {
    const keys = Array.from({ length: 20 }, (_, i) => `/app/a${i}`);
    const sets = await Promise.all(keys.map((key, i) => call("set", { key, value: { i } })));
    expect(
      sets.map((r) => r.status),
      JSON.stringify(sets.find((r) => r.status !== 200)) + server!.output.join(""),
    ).toEqual(keys.map(() => 200));
    const gets = await Promise.all(keys.map((key) => call("get", { key })));
    expect(gets.map((r) => r.json.output?.value?.i)).toEqual(keys.map((_, i) => i));

    const list = await api("GET", `/v1/workspaces/${s.ws}/capability-invocations?limit=100`, { token: s.owner.token });
    expect(list.status, list.text).toBe(200);
    expect(list.json.items.length).toBeGreaterThanOrEqual(40);

    // A webhook delivered by the worker that talks to PgBouncer.
    const got: string[] = [];
    const receiver = http.createServer((req, res) => {
      got.push(String(req.headers["webhook-id"]));
      req.resume();
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const sub = await api("POST", `/v1/workspaces/${s.ws}/event-subscriptions`, {
        token: s.owner.token,
        body: {
          url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
          event_types: ["budget.changed"],
        },
      });
      expect(sub.status, sub.text).toBe(201);
      const put = await fetch(`http://127.0.0.1:${server!.port}/v1/workspaces/${s.ws}/budgets/ai_tokens`, {
        method: "PUT",
        headers: { authorization: `Bearer ${s.owner.token}`, "content-type": "application/json" },
        body: JSON.stringify({ limit_units: 3 }),
      });
      expect(put.status).toBe(200);
      await until("the webhook through the worker", () => got.length === 1, 30_000);
      await until(
        "its delivery recorded",
        async () =>
          (await db().webhookDelivery.findFirst({ where: { subscriptionId: sub.json.id } }))?.status === "delivered",
      );
    } finally {
      receiver.close();
    }
    expect(worker!.log(), "no errors in the worker").not.toMatch(/"level":"error"/);
  }, 90_000);

  it("(b) every server connection taken: 503 problems with Retry-After, never 500; nothing acknowledged is lost", async () => {
    // Open transactions on every server connection PgBouncer may open for this database.
    const jam = await Promise.all(
      Array.from({ length: POOL }, async () => {
        const c = new pg.Client({ connectionString: bouncerUrl });
        await c.connect();
        await c.query("BEGIN");
        await c.query("SELECT 1");
        return c;
      }),
    );
    const tag = randomBytes(4).toString("hex");
    let answers: Awaited<ReturnType<typeof call>>[];
    try {
      answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => call("set", { key: `/app/b-${tag}-${i}`, value: i })),
      );
    } finally {
      await Promise.all(jam.map(async (c) => (await c.query("COMMIT"), await c.end())));
    }
    const bad = answers.filter((a) => a.status !== 200 && a.status !== 503);
    expect(bad, JSON.stringify(bad.slice(0, 2))).toEqual([]);
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length, "the jam refused calls").toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.type).toMatch(/application\/problem\+json/);
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
      expect(r.json.code).toBe("unavailable");
    }
    // Every acknowledged call is recorded: its invocation row and its value.
    for (const [i, a] of answers.entries()) {
      if (a.status !== 200) continue;
      const row = await db().capabilityInvocation.findUnique({ where: { id: a.json.capability_invocation_id } });
      expect(row, `invocation of call ${i}`).not.toBeNull();
      expect((await call("get", { key: `/app/b-${tag}-${i}` })).json.output?.value).toBe(i);
    }
    // The connections freed: calls succeed again.
    await until(
      "calls to succeed again",
      async () => (await call("set", { key: `/app/b-${tag}-after`, value: 1 })).status === 200,
      20_000,
      200,
    );
    expect(server!.output.join(""), "nothing logged as unhandled").not.toMatch(/http\.unhandled|"code":"internal"/);
  }, 90_000);
});
