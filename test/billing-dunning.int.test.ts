import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { collectDue } from "@/server/domain/billing/collection/collection-worker";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api, makeUser, type TTestUser } from "./support/api";
import { billedWorkspace, saveCard, WEBHOOK_SECRET } from "./support/billing-collection";
import { aiCapability, bootBridgeApp, bridge, kvCapability, setupBridge } from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";
import { startSmtpSink, type TSmtpSink } from "./support/smtp-sink";
import { startStripeServer, type TStripeServer } from "./support/stripe-server";

/**
 * Dunning (issue #36 item 4; docs/decisions.md "Billing: collection and
 * dunning"): a card that declines walks through the written schedule (1, 3,
 * 5, 7 days after the first failure, moved by the workspace's test clock),
 * one email and one audited, evented step each time, then the tier's policy:
 * restricted (no new deployments, priced Bridge calls refused with the reason
 * in words, unpriced ones served) and back to good standing the moment the
 * invoice is paid. An invoice past due with no card walks the same schedule
 * to suspension (nothing served), lifted by paying from the wallet.
 */
let stripe: TStripeServer;
let smtp: TSmtpSink;
let provider: TOpenAiServer;
let owner: TTestUser;
let platformToken: string;

beforeAll(async () => {
  stripe = await startStripeServer();
  smtp = await startSmtpSink();
  Object.assign(process.env, {
    CAPSTAN_STRIPE_SECRET_KEY: stripe.secretKey,
    CAPSTAN_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CAPSTAN_STRIPE_API_BASE: stripe.base,
    CAPSTAN_TEST_CLOCKS: "1",
    CAPSTAN_SMTP_URL: smtp.url,
  });
  resetEnvCache();
  await bootBridgeApp();
  owner = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
  provider = await startOpenAiServer(`sk-dunning-${randomBytes(8).toString("hex")}`, { tokens: "max_tokens" });
});

afterAll(async () => {
  for (const k of [
    "CAPSTAN_STRIPE_SECRET_KEY",
    "CAPSTAN_STRIPE_WEBHOOK_SECRET",
    "CAPSTAN_STRIPE_API_BASE",
    "CAPSTAN_TEST_CLOCKS",
    "CAPSTAN_SMTP_URL",
  ])
    delete process.env[k];
  resetEnvCache();
  await stripe?.close();
  await smtp?.stop();
  await provider?.close();
});

const DAY = 86_400_000;
const advance = async (clock: string, at: Date) =>
  expect(
    (
      await api("POST", `/v1/platform/billing/test-clocks/${clock}:advance`, {
        token: platformToken,
        body: { frozen_time: at.toISOString() },
      })
    ).status,
  ).toBe(200);
const standing = async (ws: string) =>
  (await api("GET", `/v1/workspaces/${ws}/billing-standing`, { token: owner.token })).json;
const dunningMails = (email: string) =>
  smtp.inbox.filter((m) => m.to.includes(email) && m.subject.startsWith("Payment failed"));

async function tierWith(policy: string): Promise<string> {
  const tier = `d-${randomBytes(4).toString("hex")}`;
  expect(
    (
      await api("PUT", `/v1/platform/subscription-tiers/${tier}`, {
        token: platformToken,
        body: { name: "Dunning", plan: "team", currency: "EUR", monthly_price_minor: 2500, included_credit_minor: 0 },
      })
    ).status,
  ).toBe(200);
  expect(
    (await api("GET", `/v1/platform/subscription-tiers/${tier}/dunning-policy`, { token: platformToken })).json,
  ).toMatchObject({ policy: "restrict", retry_days: [1, 3, 5, 7], updated_at: null });
  const put = await api("PUT", `/v1/platform/subscription-tiers/${tier}/dunning-policy`, {
    token: platformToken,
    body: { policy },
  });
  expect(put.status, put.text).toBe(200);
  expect(put.json).toMatchObject({ tier, policy });
  expect(
    (
      await api("PUT", `/v1/platform/subscription-tiers/${tier}/dunning-policy`, {
        token: owner.token,
        body: { policy },
      })
    ).status,
  ).toBe(403);
  return tier;
}

/** Runs the collection worker until `done` holds (it is idempotent: extra ticks change nothing). */
async function tickUntil(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    await collectDue();
    if (await done()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

describe("dunning", () => {
  it("a declining card walks 1, 3, 5, 7 days to restriction (deployments and priced calls refused in words) and back on payment", async () => {
    const tier = await tierWith("restrict");
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability({ scope: { models: ["text"], max_tokens_per_call: 50 } }), kvCapability()],
      providers: [
        {
          provider: "openai",
          baseUrl: provider.baseUrl,
          apiKey: provider.apiKey,
          models: ["text"],
          providerModels: { text: `m-${randomBytes(3).toString("hex")}` },
        },
      ],
    });
    const b = await billedWorkspace(owner, platformToken, {
      frozen: "2026-12-05T09:00:00.000Z",
      to: "2027-01-02T00:00:00.000Z",
      ws: s.ws,
      tier,
    });
    const pm = await saveCard(stripe, owner, b.ws, "decline");
    const generate = () =>
      bridge(s.token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" }, max_tokens: 10 });
    const deploy = () =>
      api("POST", `/v1/workspaces/${b.ws}/revisions/${s.revisionId}/deployments`, {
        token: owner.token,
        body: { environment_type: "preview", slot: "dun" },
      });

    // The worker charges the new invoice automatically: declined, dunning starts (retry in 1 day), the contact is emailed.
    await collectDue();
    const d0 = await db().invoiceDunning.findUniqueOrThrow({ where: { invoiceId: b.invoice.id } });
    expect(d0).toMatchObject({
      status: "active",
      step: 0,
      startedAt: new Date("2027-01-02T00:00:00.000Z"),
      nextAttemptAt: new Date("2027-01-03T00:00:00.000Z"),
    });
    expect(await standing(b.ws)).toMatchObject({
      standing: "past_due",
      dunning: [{ invoice_id: b.invoice.id, step: 0, retries: 4, amount_remaining_minor: 2500, currency: "EUR" }],
    });
    expect((await generate()).status).toBe(200); // past due is not restricted
    const first = await smtp.waitFor(b.email, 20_000);
    expect(first.subject).toContain("Invoice");
    await tickUntil("the first dunning email", async () => dunningMails(b.email).length === 1);
    expect(dunningMails(b.email)[0]!.text).toContain("We will try again on 2027-01-03 (retry 1 of 4)");

    // Nothing is retried before its day; each retry on its day, once however many ticks race.
    await collectDue();
    expect(
      stripe.requests.filter(
        (q) => q.path === "/v1/payment_intents" && q.form["metadata[invoice_id]"] === b.invoice.id,
      ),
    ).toHaveLength(1);
    for (const [i, day] of [1, 3, 5, 7].entries()) {
      await advance(b.clock, new Date(Date.parse("2027-01-02T00:00:00.000Z") + day * DAY + 60_000));
      await Promise.all([collectDue(), collectDue(), collectDue()]);
      const d = await db().invoiceDunning.findUniqueOrThrow({ where: { invoiceId: b.invoice.id } });
      expect(d.step).toBe(i + 1);
      expect(
        stripe.requests
          .filter((q) => q.path === "/v1/payment_intents" && q.form["metadata[invoice_id]"] === b.invoice.id)
          .map((q) => q.idempotencyKey),
      ).toEqual(Array.from({ length: i + 2 }, (_, k) => `${b.invoice.number}/${k + 1}`));
      if (i < 3)
        expect(d).toMatchObject({
          status: "active",
          nextAttemptAt: new Date(Date.parse("2027-01-02T00:00:00.000Z") + [3, 5, 7][i]! * DAY),
        });
      else expect(d).toMatchObject({ status: "exhausted", nextAttemptAt: null, policy: "restrict" });
    }
    await tickUntil("five dunning emails", async () => dunningMails(b.email).length === 5);
    expect(dunningMails(b.email)[4]!.text).toContain("Your workspace is restricted until it is paid");
    expect(
      await db().auditRecord.count({
        where: { workspaceId: b.ws, action: "billing.payment_failed", targetId: b.invoice.id },
      }),
    ).toBe(5);
    const failed = await db().outboxEvent.findMany({
      where: { workspaceId: b.ws, type: "invoice.payment_failed" },
      orderBy: { seq: "asc" },
    });
    expect(failed.map((e) => (e.data as { trigger: string }).trigger)).toEqual([
      "automatic",
      "dunning",
      "dunning",
      "dunning",
      "dunning",
    ]);
    const steps = await db().outboxEvent.findMany({
      where: { workspaceId: b.ws, type: "dunning.changed" },
      orderBy: { seq: "asc" },
    });
    expect(
      steps.map((e) => [(e.data as { status: string }).status, (e.data as { standing: string }).standing]),
    ).toEqual([
      ["active", "past_due"],
      ["active", "past_due"],
      ["active", "past_due"],
      ["active", "past_due"],
      ["exhausted", "restricted"],
    ]);

    // Restricted: said in words; no new deployment; priced calls refused with the reason; unpriced calls served.
    const st = await standing(b.ws);
    expect(st).toMatchObject({ standing: "restricted", invoice_id: b.invoice.id });
    expect(st.description).toBe(
      `Restricted: invoice ${b.invoice.number} (25.00 EUR) is unpaid after every retry: new deployments and priced capability calls are refused until it is paid.`,
    );
    const refused = await deploy();
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ reason: "billing_restricted" });
    expect(refused.json.detail).toContain(`invoice ${b.invoice.number}`);
    const denied = await generate();
    expect(denied.status).toBe(429);
    expect(JSON.stringify(denied.json)).toContain("the workspace is restricted for non-payment");
    expect((await bridge(s.token, "data.kv", "set", { key: "/app/x", value: 1 })).status).toBe(200);

    // The owner fixes the card and pays: lifted at once.
    stripe.setCard(pm.gateway_reference, "ok");
    const paid = await api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:charge`, {
      token: owner.token,
      body: {},
    });
    expect(paid.json).toMatchObject({ status: "succeeded", trigger: "owner", attempt: 6 });
    expect(await standing(b.ws)).toMatchObject({
      standing: "good",
      invoice_id: null,
      dunning: [],
      description: "In good standing: nothing is overdue.",
    });
    expect((await db().invoiceDunning.findUniqueOrThrow({ where: { invoiceId: b.invoice.id } })).status).toBe(
      "resolved",
    );
    expect((await generate()).status).toBe(200);
    expect((await deploy()).status).not.toBe(403);
    const lifted = await db().auditRecord.findFirstOrThrow({
      where: { workspaceId: b.ws, action: "billing.adjusted", targetId: b.ws },
      orderBy: { seq: "desc" },
    });
    expect(lifted.details).toMatchObject({ dunning: "lifted", from: "restricted", to: "good" });
  });

  it("an invoice past due with no card walks the schedule to suspension (nothing served); paying from the wallet lifts it", async () => {
    const tier = await tierWith("suspend");
    const s = await setupBridge({ owner, capabilities: [kvCapability()] });
    const b = await billedWorkspace(owner, platformToken, {
      frozen: "2026-12-05T09:00:00.000Z",
      to: "2027-01-02T00:00:00.000Z",
      ws: s.ws,
      tier,
    });
    await collectDue();
    expect(await db().invoiceDunning.count({ where: { invoiceId: b.invoice.id } })).toBe(0); // not due yet, nothing to charge
    const due = Date.parse("2027-01-16T00:00:00.000Z");
    await advance(b.clock, new Date(due + 60_000));
    await collectDue();
    expect(await db().invoiceDunning.findUniqueOrThrow({ where: { invoiceId: b.invoice.id } })).toMatchObject({
      status: "active",
      step: 0,
    });
    for (const day of [1, 3, 5, 7]) {
      await advance(b.clock, new Date(due + day * DAY + 2 * 60_000));
      await collectDue();
    }
    expect(await db().invoiceDunning.findUniqueOrThrow({ where: { invoiceId: b.invoice.id } })).toMatchObject({
      status: "exhausted",
      step: 4,
      policy: "suspend",
    });
    expect((await standing(b.ws)).standing).toBe("suspended");
    const denied = await bridge(s.token, "data.kv", "set", { key: "/app/x", value: 1 });
    expect(denied.status).toBe(429);
    expect(JSON.stringify(denied.json)).toContain("the workspace is suspended for non-payment");
    const failed = await db().outboxEvent.findMany({ where: { workspaceId: b.ws, type: "invoice.payment_failed" } });
    expect(failed.map((e) => (e.data as { failure_code: string }).failure_code)).toEqual(
      Array(5).fill("no_payment_method"),
    );
    expect(
      (
        await api("POST", `/v1/platform/wallets/${b.ws}/adjustments`, {
          token: platformToken,
          body: { amount_minor: 2500, currency: "EUR", reason: "bank transfer" },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api("POST", `/v1/workspaces/${b.ws}/invoices/${b.invoice.id}:pay`, {
          token: owner.token,
          body: { method: "wallet" },
        })
      ).status,
    ).toBe(200);
    expect((await standing(b.ws)).standing).toBe("good");
    expect((await bridge(s.token, "data.kv", "set", { key: "/app/x", value: 1 })).status).toBe(200);
  });
});
