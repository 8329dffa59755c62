import { spawn, type ChildProcess } from "node:child_process";
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { blobStore } from "@/server/platform/blob-store";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { isAlive, signalGroup } from "@/server/runtime/process-table";
import type { TRuntimeState } from "@/server/runtime";
import { api } from "./support/api";
import {
  aiCapability,
  bootBridgeApp,
  bridgeToken,
  kvCapability,
  makeServiceIdentity,
  setupBridge,
  type TBridgeSetup,
} from "./support/bridge-fixtures";
import { makeAppRepo } from "./support/deploy-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";
import { checkedFetch } from "./support/openapi-responses";
import { startS3Server, type TS3Server } from "./support/s3-server";
import { startServer, stopServer, type TServer } from "./support/spawn-server";

/**
 * Beyond one machine, end to end (issue #23 "Done when"): two web processes
 * (test/support/app-server.ts, CAPSTAN_ROLES=web) and two worker processes
 * (`src/server/workers/main.ts`: roles worker + runner), each with its own
 * data folder, on this file's PostgreSQL, one S3-compatible server (the
 * project's test server) and Redis (a key prefix of its own). Requests go to
 * the replicas in turn. Nothing here waits a fixed time: every wait polls
 * with a generous deadline (a loaded 2-core machine).
 */
const REDIS_URL = "redis://127.0.0.1:6379";
const REDIS_PREFIX = `capstan-test-${randomBytes(6).toString("hex")}:`;
const BUCKET = "replicas-roles";
const RATE = 5;
const HEARTBEAT_MS = 500;
const LEASE_MS = 3_000;
// Long enough that a slow machine's answer is never taken for a timeout (which would rightly be retried).
const WEBHOOK_TIMEOUT_MS = 5_000;
const ROOT = path.resolve(import.meta.dirname, "..");

type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type THttp = { status: number; json: TJson; text: string; headers: Headers };

let s3: TS3Server;
let provider: TOpenAiServer;
let setup: TBridgeSetup;
const servers: TServer[] = [];
type TWorker = { dir: string; hostId: string; child: ChildProcess; output: string[] };
const workers: TWorker[] = [];
let turn = 0;
/** The next replica, in turn. */
const next = () => servers[turn++ % servers.length]!;

const common = () => ({
  CAPSTAN_BLOB_S3_BUCKET: BUCKET,
  CAPSTAN_BLOB_S3_ENDPOINT: s3.endpoint,
  CAPSTAN_BLOB_S3_REGION: s3.region,
  CAPSTAN_BLOB_S3_FORCE_PATH_STYLE: "1",
  AWS_ACCESS_KEY_ID: "AKIDROLES",
  AWS_SECRET_ACCESS_KEY: "roles-secret",
  CAPSTAN_REDIS_URL: REDIS_URL,
  CAPSTAN_REDIS_KEY_PREFIX: REDIS_PREFIX,
  CAPSTAN_BRIDGE_RATE_PER_SEC: String(RATE),
  CAPSTAN_BRIDGE_BURST: String(RATE),
  SOURCE_ALLOW_LOCAL: "1",
  CAPSTAN_PROVIDER_ALLOW_PRIVATE: "1",
  CAPSTAN_WEBHOOK_ALLOW_PRIVATE: "1",
  CAPSTAN_WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
  CAPSTAN_WEBHOOK_SCHEDULE: "0,0.5,1,1,1,1,1,1,1,1",
  CAPSTAN_RUNNER_HEARTBEAT_MS: String(HEARTBEAT_MS),
  CAPSTAN_RUNNER_LEASE_MS: String(LEASE_MS),
});
const dataDir = () => mkdtempSync(path.join(os.tmpdir(), "cr-"));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(s: TServer, method: string, p: string, token: string | null, body?: unknown): Promise<THttp> {
  const res = await checkedFetch(`http://127.0.0.1:${s.port}${p}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: TJson = {};
  try {
    json = text ? (JSON.parse(text) as TJson) : {};
  } catch {
    json = {};
  }
  return { status: res.status, json, text, headers: res.headers };
}

/** A raw request (any Host header), for the surface routes. */
function raw(s: TServer, p: string, host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: s.port, path: p, headers: host ? { host } : {} }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

function startWorker(dir = dataDir()): Promise<TWorker> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "src", "server", "workers", "main.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      ...common(),
      CAPSTAN_DATA_DIR: dir,
      CAPSTAN_WORKERS: "1",
      CAPSTAN_WORKER_POLL_MS: "200",
      LOG_LEVEL: "info",
    },
  });
  const w: TWorker = { dir, hostId: `${os.hostname()}:${path.resolve(dir, "run")}`, child, output: [] };
  child.stdout.on("data", (c: Buffer) => w.output.push(c.toString()));
  child.stderr.on("data", (c: Buffer) => w.output.push(c.toString()));
  workers.push(w);
  return waitFor(
    `worker in ${dir} to start`,
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`worker exited:\n${w.output.join("")}`);
      return w.output.join("").includes("worker.process_started") ? w : undefined;
    },
    120_000,
  );
}

const alive = (w: TWorker) => w.child.exitCode === null && w.child.signalCode === null;

/** Webhook receiver: verifies signatures, can hold requests (never answered), counts what it accepted by webhook-id. */
type TReceiver = {
  url: string;
  secret: string;
  hold: number;
  held: http.ServerResponse[];
  accepted: Map<string, number>;
  close: () => Promise<void>;
};
async function startReceiver(): Promise<TReceiver> {
  const r: TReceiver = { url: "", secret: "", hold: 0, held: [], accepted: new Map(), close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const id = String(req.headers["webhook-id"] ?? "");
      const key = Buffer.from(r.secret.replace(/^whsec_/, ""), "base64");
      const expected = createHmac("sha256", key)
        .update(`${id}.${String(req.headers["webhook-timestamp"])}.${body}`)
        .digest();
      const ok = String(req.headers["webhook-signature"] ?? "")
        .split(" ")
        .some((part) => {
          const got = Buffer.from(part.split(",", 2)[1] ?? "", "base64");
          return got.length === expected.length && timingSafeEqual(got, expected);
        });
      if (!ok) return void res.writeHead(401).end();
      if (r.held.length < r.hold) return void r.held.push(res);
      r.accepted.set(id, (r.accepted.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

const owner = () => setup.owner;
const wsPath = (p: string) => `/v1/workspaces/${setup.ws}${p}`;

beforeAll(async () => {
  s3 = await startS3Server();
  s3.addBucket(BUCKET);
  s3.addKey("AKIDROLES", "roles-secret");
  // This process writes fixtures (contracts, snapshots) into the same bucket the replicas read.
  Object.assign(process.env, common());
  resetEnvCache();
  await bootBridgeApp();
  provider = await startOpenAiServer(`sk-roles-${randomBytes(6).toString("hex")}`, { tokens: 3 });
  setup = await setupBridge({
    capabilities: [kvCapability(), aiCapability({ scope: { models: ["text"], max_tokens_per_call: 64 } })],
    providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
  });
  const web = () => ({ ...common(), CAPSTAN_DATA_DIR: dataDir(), CAPSTAN_ROLES: "web" });
  servers.push(...(await Promise.all([startServer(web()), startServer(web())])));
  await Promise.all([startWorker(), startWorker()]);
}, 300_000);

afterAll(async () => {
  for (const w of workers) if (alive(w)) w.child.kill("SIGKILL");
  await Promise.all(servers.map(stopServer));
  // Apps left by a lost host (nobody's reconciler owns them any more).
  const deps = await db().deployment.findMany({ where: { workspaceId: setup?.ws ?? "" } });
  for (const d of deps) {
    const state = d.runtime as TRuntimeState | null;
    if (state && (await isAlive(state.pid, state.start_time))) signalGroup(state.pgid, "SIGKILL");
  }
  await provider?.close();
  await s3?.close();
  for (const k of Object.keys(common())) delete process.env[k];
  resetEnvCache();
}, 60_000);

let revisionId = "";
let productId = "";
let firstDeployment: TJson = {};

describe("two web replicas and two workers on one database, bucket and Redis", () => {
  it("a product frozen through one replica is read (snapshot, revision, contract) through the other", async () => {
    const [a, b] = servers as [TServer, TServer];
    const intake = await call(a, "POST", wsPath("/products"), owner().token, {
      repo_url: makeAppRepo(),
      ref: "main",
      auth: { kind: "none" },
    });
    expect(intake.status, intake.text).toBe(202);
    productId = intake.json.product_id;
    const frozen = await waitFor("the freeze (by a worker)", async () => {
      const f = await call(b, "GET", wsPath(`/source-freezes/${intake.json.source_freeze_id}`), owner().token);
      return f.json.status === "frozen" ? f.json : undefined;
    });
    revisionId = frozen.revision.id;
    const rev = await call(b, "GET", wsPath(`/revisions/${revisionId}`), owner().token);
    expect(rev.status).toBe(200);
    expect(rev.json.snapshot.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Snapshots have no download route; the web replica wrote nothing: the snapshot is in the shared bucket
    // (the worker that deploys it below reads it from there), byte-exact to its address.
    const snap = await blobStore().get(rev.json.snapshot.sha256);
    expect(snap && createHash("sha256").update(snap).digest("hex")).toBe(rev.json.snapshot.sha256);
    expect(blobStore().kind).toBe("s3");
    const confirm = await call(
      a,
      "POST",
      wsPath(`/products/${productId}/revisions/${revisionId}/descriptor:confirm`),
      owner().token,
      { edits: { build_plan: { health: { path: "/health" } } } },
    );
    expect(confirm.status, confirm.text).toBe(200);
    const contract = await waitFor("the contract through the other replica", async () => {
      const c = await call(
        b,
        "GET",
        `/v1/workspaces/${setup.ws}/revisions/${revisionId}/capability-contract`,
        owner().token,
      );
      return c.status === 200 ? c : undefined;
    });
    expect(JSON.stringify(contract.json)).toContain("data.kv");
  }, 180_000);

  it("a preview deployment placed by one worker answers through the surface route of both replicas", async () => {
    const created = await call(next(), "POST", wsPath(`/revisions/${revisionId}/deployments`), owner().token, {
      environment_type: "preview",
    });
    expect(created.status, created.text).toBe(202);
    firstDeployment = await waitFor(
      "the deployment to be active",
      async () => {
        const d = await call(next(), "GET", wsPath(`/deployments/${created.json.id}`), owner().token);
        if (d.json.status === "failed") throw new Error(`deployment failed: ${d.text}`);
        return d.json.status === "active" ? d.json : undefined;
      },
      180_000,
    );
    const row = await db().deployment.findUniqueOrThrow({ where: { id: firstDeployment.id } });
    expect(workers.map((w) => w.hostId)).toContain(row.runnerHost);
    const srf = firstDeployment.surface_id as string;
    const host = `srf-${srf.slice(4)}.localhost`;
    for (const s of servers) {
      expect(await raw(s, `/s/${srf}/health`)).toEqual({ status: 200, body: "ok" });
      expect(await raw(s, "/health", host)).toEqual({ status: 200, body: "ok" });
      // The app's Bridge socket is served by the worker that runs it.
      const hits = await raw(s, `/s/${srf}/hits`);
      expect(hits.status, hits.body).toBe(200);
      expect(JSON.parse(hits.body)).toMatchObject({ bridge_status: 200 });
    }
    // Live logs come from the runner host through its gateway, whichever replica is asked.
    const logs = await call(next(), "GET", wsPath(`/deployments/${firstDeployment.id}/logs`), owner().token);
    expect(logs.status, logs.text).toBe(200);
    expect(logs.json.live).toBe(true);
  }, 240_000);

  it("Bridge calls alternate replicas and the shared rate limit holds (at most RATE x (ceil(T)+1) in T seconds)", async () => {
    const counts = new Map<number, { ok: number; limited: number }>();
    // Warm-up: both replicas connected to Redis.
    for (const s of servers)
      expect((await call(s, "POST", "/v1/capabilities/data.kv/get", setup.token, { key: "/app/x" })).status).toBe(200);
    // Six callers in parallel, each sending to the replicas in turn, for 3 s: far more than the rate.
    const started = Date.now();
    let offered = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (Date.now() - started < 3_000) {
          const s = next();
          const r = await call(s, "POST", "/v1/capabilities/data.kv/get", setup.token, { key: "/app/x" });
          offered++;
          const c = counts.get(s.port) ?? { ok: 0, limited: 0 };
          if (r.status === 200) c.ok++;
          else {
            expect(r.status).toBe(429);
            c.limited++;
          }
          counts.set(s.port, c);
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const passed = [...counts.values()].reduce((n, c) => n + c.ok, 0);
    console.info(
      `replicas: ${passed} of ${offered} Bridge calls passed in ${seconds.toFixed(2)} s at ${RATE}/s shared`,
    );
    // Tolerance (docs/decisions.md, fixed 1 s windows in Redis): at most RATE x (ceil(T) + 1) in T seconds, whichever replica.
    expect(passed).toBeLessThanOrEqual(RATE * (Math.ceil(seconds) + 1));
    expect(counts.size).toBe(2);
    for (const c of counts.values()) expect(c.ok).toBeGreaterThan(0);
    // Two per-process limits would have let 2 x RATE per second through: the offered load exceeded the shared bound.
    if (offered > RATE * (Math.ceil(seconds) + 1))
      expect([...counts.values()].reduce((n, c) => n + c.limited, 0)).toBeGreaterThan(0);
  }, 60_000);

  it("a service identity revoked on one replica is refused by the other within 1 s", async () => {
    const [a, b] = servers as [TServer, TServer];
    const svc = await makeServiceIdentity(owner(), setup.ws, setup.productId);
    const token = await bridgeToken(svc.id, svc.secret);
    for (const s of [a, b])
      expect((await call(s, "POST", "/v1/capabilities/data.kv/get", token, { key: "/app/x" })).status).toBe(200);
    const revoked = await call(a, "DELETE", wsPath(`/service-identities/${svc.id}`), owner().token);
    expect(revoked.status).toBe(200);
    const t0 = Date.now();
    await waitFor(
      "the other replica to refuse",
      async () => (await call(b, "POST", "/v1/capabilities/data.kv/get", token, { key: "/app/x" })).status === 401,
      1_000,
    );
    console.info(`replicas: revocation refused by the other replica after ${Date.now() - t0} ms`);
  }, 30_000);

  it("kill -9 of a worker mid-work: nothing acknowledged is lost, the other finishes its claims, no webhook accepted twice; its host's deployment fails in bound, its surface answers again from a replacement on the live host, and a new one is placed there", async () => {
    const receiver = await startReceiver();
    try {
      const sub = await call(next(), "POST", wsPath("/event-subscriptions"), owner().token, {
        url: receiver.url,
        event_types: ["capability.invocation_resulted"],
      });
      expect(sub.status, sub.text).toBe(201);
      receiver.secret = sub.json.secret;
      // Until the kill the endpoint answers nothing: every request stays in flight (the workers hold their claims).
      receiver.hold = Number.POSITIVE_INFINITY;
      const svc = await makeServiceIdentity(owner(), setup.ws, setup.productId);
      const token = await bridgeToken(svc.id, svc.secret);
      const acked: string[] = [];
      for (let i = 0; i < 16; i++) {
        const r = await call(next(), "POST", "/v1/capabilities/data.kv/set", token, { key: `/app/k${i}`, value: i });
        if (r.status === 200) acked.push(r.json.capability_invocation_id);
      }
      expect(acked.length).toBeGreaterThanOrEqual(4);
      // Both workers are delivering; some requests are held (never answered): kill the deployment's runner host mid-work.
      await waitFor("deliveries in flight", async () => receiver.held.length >= 4, 60_000);
      const row = await db().deployment.findUniqueOrThrow({ where: { id: firstDeployment.id } });
      const victim = workers.find((w) => w.hostId === row.runnerHost)!;
      const survivor = workers.find((w) => w !== victim && alive(w))!;
      victim.child.kill("SIGKILL");
      await new Promise((r) => victim.child.once("exit", r));
      const killedAt = Date.now();
      // Watched from the kill on, alongside the deliveries: when does the lost host's deployment fail?
      const lostSeen = waitFor(
        "the lost host's deployment to fail",
        async () => {
          const d = await call(next(), "GET", wsPath(`/deployments/${firstDeployment.id}`), owner().token);
          return d.json.status === "failed" ? { dep: d.json, ms: Date.now() - killedAt } : undefined;
        },
        60_000,
      );
      lostSeen.catch(() => undefined);
      for (const res of receiver.held) res.destroy();
      receiver.hold = 0;

      // Every delivery ends delivered (the killed worker's leased ones by the survivor once their lease ran out),
      // every acknowledged call's event among them, each accepted exactly once: nothing was accepted before the
      // kill, so a second acceptance could only come from two live workers delivering the same claim.
      const deliveries = await waitFor(
        "every delivery to be delivered",
        async () => {
          const rows = await db().webhookDelivery.findMany({ where: { subscriptionId: sub.json.id } });
          return rows.length >= acked.length && rows.every((d) => d.status === "delivered") ? rows : undefined;
        },
        120_000,
      );
      const events = await db().outboxEvent.findMany({
        where: { workspaceId: setup.ws, type: "capability.invocation_resulted", subject: { in: acked } },
      });
      expect(events).toHaveLength(acked.length);
      const delivered = new Set(deliveries.map((d) => d.eventId));
      for (const e of events) expect(delivered.has(e.id), e.id).toBe(true);
      for (const d of deliveries) expect(receiver.accepted.get(d.eventId), d.eventId).toBe(1);
      console.info(
        `replicas: ${acked.length} acknowledged calls, ${deliveries.length} deliveries, ${deliveries.filter((d) => d.attemptCount > 1).length} finished after a retry`,
      );

      // The lost host's deployment fails within lease + heartbeat + a tick (generous deadline for a loaded machine).
      const { dep: failed, ms: tookMs } = await lostSeen;
      console.info(
        `replicas: lost runner host's deployment failed ${tookMs} ms after the kill (lease ${LEASE_MS} ms, heartbeat ${HEARTBEAT_MS} ms; polled, so it includes one request)`,
      );
      expect(failed.reason_code).toBe("runner_host_lost");
      expect(JSON.stringify(failed.findings)).toContain(victim.hostId);
      // Self-healing placement (host-lapse.service.ts): the same surface answers again, from a replacement on the
      // live host, through both replicas (503 with Retry-After meanwhile, never 410: the surface stays active).
      const healed = await waitFor(
        "the lost deployment's surface to answer from a replacement",
        async () => {
          const srf = await db().surface.findUniqueOrThrow({ where: { id: firstDeployment.surface_id } });
          if (srf.status !== "active") throw new Error(`surface ${srf.id} is ${srf.status}`);
          if (srf.deploymentId === firstDeployment.id) return undefined;
          const dep = await db().deployment.findUniqueOrThrow({ where: { id: srf.deploymentId } });
          return dep.status === "active" ? dep : undefined;
        },
        180_000,
      );
      expect(healed.runnerHost).toBe(survivor.hostId);
      for (const s of servers)
        expect(await raw(s, `/s/${firstDeployment.surface_id}/health`)).toEqual({ status: 200, body: "ok" });

      // A new deployment is placed on the live host and answers through both replicas.
      const again = await call(next(), "POST", wsPath(`/revisions/${revisionId}/deployments`), owner().token, {
        environment_type: "preview",
      });
      expect(again.status, again.text).toBe(202);
      const active = await waitFor(
        "the new deployment to be active",
        async () => {
          const d = await call(next(), "GET", wsPath(`/deployments/${again.json.id}`), owner().token);
          if (d.json.status === "failed") throw new Error(`deployment failed: ${d.text}`);
          return d.json.status === "active" ? d.json : undefined;
        },
        180_000,
      );
      expect((await db().deployment.findUniqueOrThrow({ where: { id: active.id } })).runnerHost).toBe(survivor.hostId);
      for (const s of servers)
        expect(await raw(s, `/s/${active.surface_id}/health`)).toEqual({ status: 200, body: "ok" });

      // The lost host comes back (same folder): it is live again and removes the app nobody owns.
      const orphan = row.runtime as unknown as TRuntimeState;
      expect(await isAlive(orphan.pid, orphan.start_time)).toBe(true);
      await startWorker(victim.dir);
      await waitFor(
        "the returning host to remove the lost deployment's app",
        async () => !(await isAlive(orphan.pid, orphan.start_time)),
        60_000,
      );
      expect((await db().runnerHost.findUniqueOrThrow({ where: { id: victim.hostId } })).state).toBe("live");
    } finally {
      await receiver.close();
    }
  }, 420_000);

  it("a surface expiry raced by both workers happens once", async () => {
    const dep = await db().deployment.findFirstOrThrow({ where: { workspaceId: setup.ws, status: "active" } });
    const srf = await db().surface.findUniqueOrThrow({ where: { deploymentId: dep.id } });
    const past = new Date(Date.now() - 1_000);
    await db().$transaction([
      db().surface.update({ where: { id: srf.id }, data: { expiresAt: past } }),
      db().deadline.update({ where: { id: srf.deadlineId }, data: { dueAt: past } }),
    ]);
    await waitFor(
      "the expiry",
      async () => (await db().deployment.findUniqueOrThrow({ where: { id: dep.id } })).status === "superseded",
      60_000,
    );
    const changed = await db().outboxEvent.findMany({ where: { subject: dep.id, type: "deployment.changed" } });
    expect(changed.filter((e) => (e.data as TJson).event === "expire")).toHaveLength(1);
    const srfEvents = await db().outboxEvent.findMany({ where: { subject: srf.id, type: "surface.changed" } });
    expect(srfEvents.filter((e) => (e.data as TJson).to === "expired")).toHaveLength(1);
    expect(
      await db().auditRecord.count({
        where: { workspaceId: setup.ws, action: "deployment.stopped", targetId: dep.id },
      }),
    ).toBe(1);
    expect((await db().deadline.findUniqueOrThrow({ where: { id: srf.deadlineId } })).status).toBe("fired");
    for (const s of servers) expect((await raw(s, `/s/${srf.id}/health`)).status).toBe(410);
  }, 90_000);

  it("a month-close invoice raced by two processes is issued once", async () => {
    const platformToken = await issueTokenForEmail("admin@example.com", 3600);
    const card = await api("PUT", "/v1/platform/rate-cards/openai/test-chat", {
      token: platformToken,
      body: {
        currency: "USD",
        prices: { input_tokens_per_million: 1_000_000, output_tokens_per_million: 3_000_000, per_call: 500 },
      },
    });
    expect([200, 201]).toContain(card.status);
    for (let i = 0; i < 2; i++) {
      const r = await call(next(), "POST", "/v1/capabilities/ai.generate/generate", setup.token, {
        model_kind: "text",
        input: { text: "bill me" },
        max_tokens: 8,
      });
      expect(r.status, r.text).toBe(200);
    }
    const now = new Date();
    const close = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1)).toISOString();
    const startAt = Date.now() + 4_000;
    const race = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [
            "--conditions=react-server",
            "--import",
            "tsx",
            path.join(ROOT, "test", "support", "run-job.ts"),
            "invoices",
            close,
            String(startAt),
          ],
          {
            cwd: ROOT,
            env: { ...process.env, CAPSTAN_DATA_DIR: dataDir(), LOG_LEVEL: "warn" },
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        let out = "";
        child.stdout.on("data", (c: Buffer) => (out += c.toString()));
        child.stderr.on("data", (c: Buffer) => (out += c.toString()));
        child.once("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`run-job exited ${code}: ${out}`))));
      });
    const outs = await Promise.all([race(), race()]);
    const issued = outs.map((o) => Number(/result (\d+)/.exec(o)?.[1] ?? "NaN"));
    expect(
      issued.reduce((a, b) => a + b, 0),
      outs.join("\n"),
    ).toBe(1);
    const month = close.slice(0, 7);
    const thisMonth = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
    expect(month).not.toBe("");
    expect(await db().invoice.count({ where: { workspaceId: setup.ws, month: thisMonth } })).toBe(1);
    expect(await db().auditRecord.count({ where: { workspaceId: setup.ws, action: "billing.invoice_issued" } })).toBe(
      1,
    );
  }, 120_000);
});
