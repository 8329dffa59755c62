import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeSignalStats } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import { rotateSigningKey } from "@/server/domain/signing-keys/signing-keys.service";
import { newId } from "@/server/platform/ids";
import {
  aiCapability,
  bootBridgeApp,
  bridgeToken,
  kvCapability,
  makeServiceIdentity,
  setupBridge,
  type TBridgeSetup,
} from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";
import { checkedFetch } from "./support/openapi-responses";
import { startServer, stopServer, type TServer } from "./support/spawn-server";

/**
 * Caches that agree (issue #23 part 4): two real server processes on this
 * file's database. Each keeps per-process caches on the Bridge path (service
 * identity status 5 s, bindings 1 s, signing keys 5 s); a change made through
 * one process (or a third, this one) must stop working on the other within
 * 1 s: LISTEN/NOTIFY change signals, not the end of a TTL.
 */
const DEADLINE_MS = 1_000;
const servers: TServer[] = [];
let provider: TOpenAiServer;
let setup: TBridgeSetup;

type THttp = { status: number; json: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(s: TServer, method: string, path: string, token: string, body?: unknown): Promise<THttp> {
  const res = await checkedFetch(`http://127.0.0.1:${s.port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const kvGet = (s: TServer, token: string) => call(s, "POST", "/v1/capabilities/data.kv/get", token, { key: "/app/x" });
const generate = (s: TServer, token: string) =>
  call(s, "POST", "/v1/capabilities/ai.generate/generate", token, {
    model_kind: "text",
    input: { messages: [{ role: "user", content: "hi" }] },
    max_tokens: 5,
  });

/** Polls `probe` on a server until `done` holds; returns how long it took (fails past the deadline). */
async function within(deadlineMs: number, probe: () => Promise<THttp>, done: (r: THttp) => boolean): Promise<number> {
  const started = Date.now();
  let last: THttp | undefined;
  while (Date.now() - started < deadlineMs) {
    last = await probe();
    if (done(last)) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`not seen within ${deadlineMs} ms; last answer ${last?.status} ${JSON.stringify(last?.json)}`);
}

beforeAll(async () => {
  await bootBridgeApp();
  provider = await startOpenAiServer(`sk-replicas-${randomBytes(8).toString("hex")}`);
  setup = await setupBridge({
    capabilities: [kvCapability(), aiCapability()],
    providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
  });
  servers.push(
    ...(await Promise.all([
      startServer({ CAPSTAN_PROVIDER_ALLOW_PRIVATE: "1" }),
      startServer({ CAPSTAN_PROVIDER_ALLOW_PRIVATE: "1" }),
    ])),
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map(stopServer));
  await provider?.close();
});

describe("caches that agree across two server processes", () => {
  it("a service identity revoked on one process is refused by the other within 1 s", async () => {
    const [a, b] = servers as [TServer, TServer];
    const svc = await makeServiceIdentity(setup.owner, setup.ws, setup.productId);
    const token = await bridgeToken(svc.id, svc.secret);
    // Both processes have verified the token and cached the identity as active.
    for (const s of [a, b]) expect((await kvGet(s, token)).status).toBe(200);

    const revoked = await call(
      a,
      "DELETE",
      `/v1/workspaces/${setup.ws}/service-identities/${svc.id}`,
      setup.owner.token,
    );
    expect(revoked.status).toBe(200);
    const ms = await within(
      DEADLINE_MS,
      () => kvGet(b, token),
      (r) => r.status === 401,
    );
    console.info(`revocation seen by the other process after ${ms} ms`);
    expect((await kvGet(a, token)).status).toBe(401);
    // The other identity is untouched.
    expect((await kvGet(b, setup.token)).status).toBe(200);
  });

  it("a listener whose connection is killed reconnects by itself (and starts its caches over); signals flow again", async () => {
    const [a, b] = servers as [TServer, TServer];
    const listeners = () => db().$queryRaw<{ pid: number }[]>`
      SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN capstan_changes'`;
    const before = changeSignalStats();
    expect(before.listening).toBe(true);
    const pids = await listeners();
    expect(pids.length).toBeGreaterThanOrEqual(3); // this process and the two servers
    await db()
      .$queryRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN capstan_changes'`;
    const deadline = Date.now() + 10_000;
    while (
      Date.now() < deadline &&
      (changeSignalStats().reconnects === before.reconnects || (await listeners()).length < pids.length)
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(changeSignalStats().reconnects).toBeGreaterThan(before.reconnects);
    expect((await listeners()).length).toBe(pids.length);

    const svc = await makeServiceIdentity(setup.owner, setup.ws, setup.productId);
    const token = await bridgeToken(svc.id, svc.secret);
    for (const s of [a, b]) expect((await kvGet(s, token)).status).toBe(200);
    expect(
      (await call(a, "DELETE", `/v1/workspaces/${setup.ws}/service-identities/${svc.id}`, setup.owner.token)).status,
    ).toBe(200);
    await within(
      DEADLINE_MS,
      () => kvGet(b, token),
      (r) => r.status === 401,
    );
  });

  it("a binding deleted on one process stops serving on the other within 1 s", async () => {
    const [a, b] = servers as [TServer, TServer];
    for (const s of [a, b]) expect((await generate(s, setup.token)).status).toBe(200);
    const bindingId = setup.providers.openai!.bindingId;
    expect(
      (await call(a, "DELETE", `/v1/workspaces/${setup.ws}/provider-bindings/${bindingId}`, setup.owner.token)).status,
    ).toBe(204);
    const ms = await within(
      DEADLINE_MS,
      () => generate(b, setup.token),
      (r) => r.status === 409,
    );
    console.info(`binding deletion seen by the other process after ${ms} ms`);
    expect((await generate(b, setup.token)).json.reason).toBe("binding_revoked");
  });

  it("an emergency key rotation (from a third process) ends the old key's tokens on both within 1 s", async () => {
    const [a, b] = servers as [TServer, TServer];
    for (const s of [a, b]) expect((await kvGet(s, setup.token)).status).toBe(200);
    await rotateSigningKey({
      emergency: true,
      correlationId: newId("evt"),
      actor: { kind: "system", id: null },
      reason: "replicas test",
    });
    for (const s of [a, b]) {
      const ms = await within(
        DEADLINE_MS,
        () => kvGet(s, setup.token),
        (r) => r.status === 401,
      );
      console.info(`emergency rotation seen by process ${s.port} after ${ms} ms`);
    }
    // A token from the new key works on both.
    const fresh = await bridgeToken(setup.svc.id, setup.svc.secret);
    for (const s of [a, b]) expect((await kvGet(s, fresh)).status).toBe(200);
  });
});
