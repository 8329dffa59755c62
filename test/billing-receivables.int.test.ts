import { randomBytes } from "node:crypto";
import { PDFDocument } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { closeDueMonths } from "@/server/domain/billing/month-close.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api, bootApp, makeUser, makeWorkspace, BASE_URL, type TTestUser } from "./support/api";
import { handleInvoicePdf } from "./support/handlers";
import { startSmtpSink, type TSmtpSink } from "./support/smtp-sink";

/**
 * Invoices as receivables (issue #36 item 2, wallet payment of item 3;
 * docs/decisions.md "Billing: invoices as receivables"): a closed month's
 * invoice is open with a number, amounts due/paid/remaining and a due date
 * from the profile's terms, emailed to the billing contact with its PDF,
 * readable by REST and as a PDF; paid from the wallet once however many
 * collections race; voided or written off through the transition table;
 * numbers gap-free across parallel closes.
 */
let owner: TTestUser;
let outsider: TTestUser;
let platformToken: string;
let smtp: TSmtpSink;

beforeAll(async () => {
  smtp = await startSmtpSink();
  process.env.CAPSTAN_SMTP_URL = smtp.url;
  process.env.CAPSTAN_TEST_CLOCKS = "1";
  resetEnvCache();
  await bootApp();
  owner = await makeUser();
  outsider = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
});

afterAll(async () => {
  delete process.env.CAPSTAN_SMTP_URL;
  delete process.env.CAPSTAN_TEST_CLOCKS;
  resetEnvCache();
  await smtp.stop();
});

const TIER = { name: "Receivable", plan: "team", currency: "EUR", monthly_price_minor: 1500, included_credit_minor: 0 };

async function billed(frozen: string, to: string, profile = true) {
  const tier = `r-${randomBytes(4).toString("hex")}`;
  expect(
    (await api("PUT", `/v1/platform/subscription-tiers/${tier}`, { token: platformToken, body: TIER })).status,
  ).toBe(200);
  const ws = (await makeWorkspace(owner.token)).id;
  const email = `ap-${randomBytes(4).toString("hex")}@billing.example`;
  if (profile) {
    const p = await api("PUT", `/v1/workspaces/${ws}/billing-profile`, {
      token: owner.token,
      body: {
        legal_name: "Zahlung GmbH",
        email,
        address: { line1: "Weg 1", city: "Köln", postal_code: "50667", country: "DE" },
        payment_terms_days: 30,
      },
    });
    expect(p.status, p.text).toBe(200);
    expect(p.json.payment_terms_days).toBe(30);
  }
  const clock = (
    await api("POST", "/v1/platform/billing/test-clocks", {
      token: platformToken,
      body: { workspace_id: ws, frozen_time: frozen },
    })
  ).json as { id: string };
  expect((await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } })).status).toBe(
    200,
  );
  expect(
    (
      await api("POST", `/v1/platform/billing/test-clocks/${clock.id}:advance`, {
        token: platformToken,
        body: { frozen_time: to },
      })
    ).status,
  ).toBe(200);
  return { ws, email, clock };
}

const pay = (ws: string, ivc: string, token = owner.token) =>
  api("POST", `/v1/workspaces/${ws}/invoices/${ivc}:pay`, { token, body: { method: "wallet" } });
const pdf = (ws: string, ivc: string, token = owner.token) =>
  handleInvoicePdf(
    new Request(`${BASE_URL}/v1/workspaces/${ws}/invoices/${ivc}/pdf`, {
      headers: { authorization: `Bearer ${token}` },
    }),
    ws,
    ivc,
  );

describe("invoices as receivables", () => {
  it("a closed month's invoice is open, numbered, due by the profile's terms, emailed with its PDF, and paid from the wallet exactly once", async () => {
    const { ws, email } = await billed("2026-12-05T09:00:00.000Z", "2027-01-02T00:00:00.000Z");
    await closeDueMonths();
    const list = await api("GET", `/v1/workspaces/${ws}/invoices`, { token: owner.token });
    expect(list.json.items).toHaveLength(1);
    const inv = list.json.items[0];
    expect(inv).toMatchObject({
      month: "2026-12",
      currency: "EUR",
      status: "open",
      number: expect.stringMatching(/^CAP-\d{6}$/),
      total_minor: 1500,
      subscription_minor: 1500,
      debt_minor: 0,
      amount_due_minor: 1500,
      amount_paid_minor: 0,
      credited_minor: 0,
      amount_remaining_minor: 1500,
      finalized_at: "2027-01-02T00:00:00.000Z",
      due_at: "2027-02-01T00:00:00.000Z",
    });
    const one = await api("GET", `/v1/workspaces/${ws}/invoices/${inv.id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.json).toEqual(inv);
    expect((await api("GET", `/v1/workspaces/${ws}/invoices/${inv.id}`, { token: outsider.token })).status).toBe(403);
    const otherWs = (await makeWorkspace(outsider.token)).id;
    expect((await api("GET", `/v1/workspaces/${otherWs}/invoices/${inv.id}`, { token: outsider.token })).status).toBe(
      404,
    );
    expect((await api("GET", `/v1/workspaces/${ws}/invoices/ivc_nope`, { token: owner.token })).status).toBe(400);

    // The email to the billing contact, with the PDF attached.
    const mail = await smtp.waitFor(email, 20_000);
    expect(mail.subject).toContain(inv.number);
    expect(mail.raw).toContain("application/pdf");
    expect((await db().invoice.findUniqueOrThrow({ where: { id: inv.id } })).emailedAt).not.toBeNull();

    // The PDF over HTTP: owner/admin only; a real PDF whose title names the number.
    const res = await pdf(ws, inv.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe("%PDF-");
    expect((await PDFDocument.load(bytes)).getTitle()).toBe(`Invoice ${inv.number}`);
    expect((await pdf(ws, inv.id, outsider.token)).status).toBe(403);
    expect((await pdf(otherWs, inv.id, outsider.token)).status).toBe(404);

    // Not enough paid balance: 409 with the amounts, each with its currency; nothing written.
    const short = await pay(ws, inv.id);
    expect(short.status).toBe(409);
    expect(short.json).toMatchObject({
      reason: "insufficient_balance",
      amount_remaining_minor: 1500,
      available_micros: 0,
      currency: "EUR",
    });
    expect(
      (
        await api("POST", `/v1/platform/wallets/${ws}/adjustments`, {
          token: platformToken,
          body: { amount_minor: 2000, currency: "EUR", reason: "bank transfer" },
        })
      ).status,
    ).toBe(201);
    // Five collections race: exactly one succeeds.
    const racing = await Promise.all(Array.from({ length: 5 }, () => pay(ws, inv.id)));
    expect(racing.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const paid = racing.find((r) => r.status === 200)!.json;
    expect(paid).toMatchObject({ status: "paid", amount_paid_minor: 1500, amount_remaining_minor: 0 });
    for (const r of racing.filter((x) => x.status === 409)) expect(r.json.reason).toBe("invoice_not_payable");
    const entries = await db().walletEntry.findMany({ where: { workspaceId: ws, kind: "invoice_payment" } });
    expect(entries.map((e) => [Number(e.amountMicros), e.currency])).toEqual([[-15_000_000, "EUR"]]);
    expect((await api("GET", `/v1/workspaces/${ws}/wallet`, { token: owner.token })).json.balances[0]).toMatchObject({
      currency: "EUR",
      paid_micros: 5_000_000,
    });
    const events = await db().outboxEvent.findMany({
      where: { workspaceId: ws, subject: inv.id },
      orderBy: { seq: "asc" },
    });
    expect(events.map((e) => e.type)).toEqual(["invoice.issued", "invoice.paid"]);
    expect(events[1]!.data).toMatchObject({
      invoice_id: inv.id,
      number: inv.number,
      amount_paid_minor: 1500,
      currency: "EUR",
      method: "wallet",
    });
    expect((await pay(ws, inv.id, outsider.token)).status).toBe(403);
    // A paid invoice cannot be voided; what it bills never changes (trigger).
    expect(
      (
        await api("POST", `/v1/platform/wallets/${ws}/invoices/${inv.id}:void`, {
          token: platformToken,
          body: { reason: "x" },
        })
      ).status,
    ).toBe(409);
    await expect(db().$executeRaw`UPDATE invoices SET amount_due_minor = 0 WHERE id = ${inv.id}`).rejects.toThrow(
      /append-only/,
    );
    await expect(db().$executeRaw`DELETE FROM invoices WHERE id = ${inv.id}`).rejects.toThrow(/append-only/);
  });

  it("void and uncollectible follow the transition table; a missing billing contact is recorded, not fatal", async () => {
    const { ws } = await billed("2026-12-05T09:00:00.000Z", "2027-02-02T00:00:00.000Z", false);
    await closeDueMonths();
    const [dec, jan] = await db().invoice.findMany({ where: { workspaceId: ws }, orderBy: { month: "asc" } });
    expect([dec!.status, jan!.status, dec!.emailError]).toEqual([
      "open",
      "open",
      "the workspace has no billing profile email",
    ]);
    expect(dec!.dueAt!.getTime() - dec!.finalizedAt!.getTime()).toBe(14 * 86_400_000);
    const act = (
      ivc: string,
      action: string,
      body: Record<string, unknown> = { reason: "customer went away" },
      token = platformToken,
    ) => api("POST", `/v1/platform/wallets/${ws}/invoices/${ivc}:${action}`, { token, body });
    expect((await act(dec!.id, "mark-uncollectible", {}, platformToken)).status).toBe(422);
    expect((await act(dec!.id, "mark-uncollectible", undefined, owner.token)).status).toBe(403);
    const written = await act(dec!.id, "mark-uncollectible");
    expect(written.status, written.text).toBe(200);
    expect(written.json.status).toBe("uncollectible");
    expect((await act(dec!.id, "mark-uncollectible")).json.reason).toBe("illegal_transition");
    expect((await act(dec!.id, "void")).json.status).toBe("void");
    expect((await act(jan!.id, "void")).json.status).toBe("void");
    const voidPay = await pay(ws, jan!.id);
    expect([voidPay.status, voidPay.json.reason]).toEqual([409, "invoice_not_payable"]);
    expect(await db().outboxEvent.count({ where: { workspaceId: ws, type: "invoice.voided" } })).toBe(2);
  });

  it("invoice numbers stay gap-free and unique with parallel closes", async () => {
    const all = await Promise.all(
      Array.from({ length: 6 }, () => billed("2026-12-10T00:00:00.000Z", "2027-03-01T00:00:00.000Z", false)),
    );
    const closes = await Promise.all([
      ...all.map(({ ws }) =>
        api("POST", "/v1/platform/billing/closes", {
          token: platformToken,
          body: { month: "2027-01", workspace_id: ws },
        }),
      ),
      closeDueMonths(),
      closeDueMonths(),
    ]);
    for (const c of closes.slice(0, all.length)) expect((c as { status: number }).status).toBe(200);
    await closeDueMonths();
    const numbers = (await db().invoice.findMany({ where: { status: { not: "draft" } }, select: { number: true } }))
      .map((i) => Number(i.number!.slice(4)))
      .sort((a, b) => a - b);
    expect(numbers.length).toBeGreaterThanOrEqual(6 * 3);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
  });
});
