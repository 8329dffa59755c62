import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverDue, dispatchOutbox } from "@/server/domain/webhooks/delivery.service";
import { db } from "@/server/platform/db/client";
import { EgressBlockedError, egressFetch, type TEgressPurpose } from "@/server/platform/egress";
import { newId } from "@/server/platform/ids";
import { EVENT_TYPES } from "@/server/platform/outbox";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { aiCapability, bootBridgeApp, bridge, setupBridge } from "./support/bridge-fixtures";
import { withFlag, type TFlag } from "./support/env";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/**
 * The connect-time egress guard (src/server/platform/egress.ts) against real
 * loopback servers: with a purpose's allow flag off, an IP literal and a DNS
 * name (`localhost`, resolved through dns.lookup) that land on 127.0.0.1 are
 * refused before any byte is sent; with the flag on they connect. Then the
 * same through the Bridge (provider_unavailable, the provider never hears of
 * the call) and webhook delivery (a failed attempt naming the refusal).
 * Every test opens its own server, so no pooled keep-alive connection from an
 * allowed call can carry a refused one.
 */

const FLAG: Record<TEgressPurpose, TFlag> = {
  provider: "CAPSTAN_PROVIDER_ALLOW_PRIVATE",
  webhook: "CAPSTAN_WEBHOOK_ALLOW_PRIVATE",
  oidc: "OIDC_ALLOW_INSECURE_ISSUER",
};

type TServer = { port: number; hits: number; close: () => Promise<void> };
const servers: TServer[] = [];

async function startServer(): Promise<TServer> {
  const s: TServer = { port: 0, hits: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    s.hits++;
    req.resume();
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  s.port = (server.address() as AddressInfo).port;
  s.close = () => {
    const done = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    return done;
  };
  servers.push(s);
  return s;
}

let owner: TTestUser;
let ws: string;

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe("egressFetch", () => {
  for (const purpose of ["provider", "webhook", "oidc"] as const) {
    it(`${purpose}: refuses loopback by literal and by DNS name unless ${FLAG[purpose]}`, async () => {
      const s = await startServer();
      await withFlag(FLAG[purpose], false, async () => {
        for (const host of ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]"]) {
          const err = await egressFetch(purpose, `http://${host}:${s.port}/x`).then(
            () => null,
            (e: unknown) => e,
          );
          expect(err, host).toBeInstanceOf(EgressBlockedError);
          expect((err as EgressBlockedError).code).toBe("EGRESS_BLOCKED");
          expect((err as Error).message).toMatch(/^egress blocked: .+ resolves to a non-public address$/);
        }
        // The DNS name is named as such: its resolved addresses stay out of the message.
        const named = await egressFetch(purpose, `http://localhost:${s.port}/x`).catch((e: Error) => e);
        expect((named as Error).message).toBe("egress blocked: localhost resolves to a non-public address");
      });
      expect(s.hits).toBe(0);

      await withFlag(FLAG[purpose], true, async () => {
        for (const host of ["127.0.0.1", "localhost"]) {
          const res = await egressFetch(purpose, `http://${host}:${s.port}/x`);
          expect(res.status, host).toBe(200);
          await res.text();
        }
      });
      expect(s.hits).toBe(2);
    });
  }
});

describe("the Bridge", () => {
  it("a binding to a host resolving to loopback is provider_unavailable once the flag is off; the provider gets no request", async () => {
    const provider: TOpenAiServer = await startOpenAiServer(`sk-egress-${randomBytes(12).toString("hex")}`);
    try {
      // Created while CAPSTAN_PROVIDER_ALLOW_PRIVATE is on (bootBridgeApp), so creation accepts http://localhost.
      const s = await setupBridge({
        owner,
        ws,
        capabilities: [aiCapability({ scope: { models: ["text"], max_tokens_per_call: 50 } })],
        providers: [
          { provider: "openai", baseUrl: provider.baseUrl.replace("127.0.0.1", "localhost"), apiKey: provider.apiKey },
        ],
      });
      const body = { model_kind: "text", input: { text: "hi" }, max_tokens: 8 };
      await withFlag("CAPSTAN_PROVIDER_ALLOW_PRIVATE", false, async () => {
        const r = await bridge(s.token, "ai.generate", "generate", body);
        expect(r.status, r.text).toBe(503);
        expect(r.json).toMatchObject({ reason: "provider_unavailable", outcome: "failed" });
        expect(r.json.detail).toContain("egress blocked: localhost resolves to a non-public address");
        expect(r.text).not.toContain("127.0.0.1");
      });
      expect(provider.calls).toHaveLength(0);

      const ok = await bridge(s.token, "ai.generate", "generate", body);
      expect(ok.status, ok.text).toBe(200);
      expect(provider.calls).toHaveLength(1);
    } finally {
      await provider.close();
    }
  });
});

describe("webhook delivery", () => {
  it("an attempt to a host resolving to loopback fails with the refusal once the flag is off; the receiver gets nothing", async () => {
    const receiver = await startServer();
    const sub = await withFlag("CAPSTAN_WEBHOOK_ALLOW_PRIVATE", true, () =>
      api("POST", `/v1/workspaces/${ws}/event-subscriptions`, {
        token: owner.token,
        body: { url: `http://localhost:${receiver.port}/hook`, event_types: ["*"] },
      }),
    );
    expect(sub.status, sub.text).toBe(201);
    await db().outboxEvent.create({
      data: {
        id: newId("evt"),
        workspaceId: ws,
        type: "budget.changed",
        version: EVENT_TYPES["budget.changed"],
        source: `/v1/workspaces/${ws}`,
        correlationId: newId("evt"),
        data: {},
      },
    });
    await withFlag("CAPSTAN_WEBHOOK_ALLOW_PRIVATE", false, async () => {
      for (let i = 0; i < 100 && (await dispatchOutbox()) > 0; i++);
      expect(await deliverDue()).toBe(1);
    });
    const delivery = await db().webhookDelivery.findFirstOrThrow({
      where: { subscriptionId: sub.json.id },
      include: { attempts: true },
    });
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({
      statusCode: null,
      error: "egress blocked: localhost resolves to a non-public address",
    });
    expect(delivery.status).toBe("pending"); // retried on the schedule, like any connection error
    expect(receiver.hits).toBe(0);
  });
});
