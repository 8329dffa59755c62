import { randomBytes } from "node:crypto";
import { inflateSync } from "node:zlib";
import { PDFDocument } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { closeDueMonths } from "@/server/domain/billing/month-close.service";
import { renderInvoicePdf } from "@/server/domain/billing/invoice-pdf";
import { getInvoiceDocument } from "@/server/domain/billing/invoices.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * Credit notes (issue #36 item 5; docs/decisions.md "Billing: credit notes"):
 * partial and whole, against an open invoice (what is due goes down, a fully
 * credited invoice is paid) and a paid one (what was paid goes back to the
 * wallet), gap-free numbers of their own, 409 past what is creditable (with
 * the amount and currency), concurrent notes never over-credit, in the PDF,
 * the ledger, the audit trail and the event; only the platform issues them.
 */
let owner: TTestUser;
let outsider: TTestUser;
let platformToken: string;

beforeAll(async () => {
  process.env.CAPSTAN_TEST_CLOCKS = "1";
  resetEnvCache();
  await bootApp();
  owner = await makeUser();
  outsider = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
});

afterAll(async () => {
  delete process.env.CAPSTAN_TEST_CLOCKS;
  resetEnvCache();
});

/** A workspace with one open EUR invoice of 1500 for December 2026. */
async function openInvoice(): Promise<{ ws: string; inv: Record<string, unknown> & { id: string; number: string } }> {
  const tier = `cn-${randomBytes(4).toString("hex")}`;
  expect(
    (
      await api("PUT", `/v1/platform/subscription-tiers/${tier}`, {
        token: platformToken,
        body: { name: "Credited", plan: "team", currency: "EUR", monthly_price_minor: 1500, included_credit_minor: 0 },
      })
    ).status,
  ).toBe(200);
  const ws = (await makeWorkspace(owner.token)).id;
  const clock = (
    await api("POST", "/v1/platform/billing/test-clocks", {
      token: platformToken,
      body: { workspace_id: ws, frozen_time: "2026-12-05T09:00:00.000Z" },
    })
  ).json as { id: string };
  expect((await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } })).status).toBe(
    200,
  );
  expect(
    (
      await api("POST", `/v1/platform/billing/test-clocks/${clock.id}:advance`, {
        token: platformToken,
        body: { frozen_time: "2027-01-02T00:00:00.000Z" },
      })
    ).status,
  ).toBe(200);
  await closeDueMonths();
  const inv = (await api("GET", `/v1/workspaces/${ws}/invoices`, { token: owner.token })).json.items[0];
  expect(inv).toMatchObject({ status: "open", amount_due_minor: 1500, amount_remaining_minor: 1500 });
  return { ws, inv };
}

const credit = (ws: string, ivc: string, body: Record<string, unknown>, token = platformToken) =>
  api("POST", `/v1/platform/wallets/${ws}/invoices/${ivc}/credit-notes`, { token, body });
/** The text runs of a pdf-lib document: its content streams inflated, each run a hex string shown with Tj. */
function pdfText(pdf: Uint8Array): string {
  const raw = Buffer.from(pdf);
  const out: string[] = [];
  for (let at = raw.indexOf("stream\n"); at >= 0; at = raw.indexOf("stream\n", at + 1)) {
    const end = raw.indexOf("endstream", at);
    if (end < 0) break;
    try {
      const body = inflateSync(raw.subarray(at + 7, end)).toString("latin1");
      for (const m of body.matchAll(/<([0-9A-Fa-f]+)>\s*Tj/g)) out.push(Buffer.from(m[1]!, "hex").toString("latin1"));
    } catch {
      // not a deflated content stream (fonts, metadata)
    }
    at = end;
  }
  return out.join("\n");
}
const seq = (n: string) => Number(n.split("-").pop());

describe("credit notes", () => {
  it("reduce what is due on an open invoice, then pay it when nothing is left; numbered in their own gap-free series", async () => {
    const { ws, inv } = await openInvoice();
    const first = await credit(ws, inv.id, { amount_minor: 400, reason: "outage on Dec 12" });
    expect(first.status, first.text).toBe(201);
    expect(first.json).toMatchObject({
      invoice_id: inv.id,
      invoice_number: inv.number,
      number: expect.stringMatching(/^CAP-CN-\d{6}$/),
      currency: "EUR",
      amount_minor: 400,
      reduced_minor: 400,
      refunded_minor: 0,
      refund_to: null,
      reason: "outage on Dec 12",
    });
    const after = (await api("GET", `/v1/workspaces/${ws}/invoices/${inv.id}`, { token: owner.token })).json;
    expect(after).toMatchObject({
      status: "open",
      amount_due_minor: 1500,
      credited_minor: 400,
      amount_paid_minor: 0,
      amount_remaining_minor: 1100,
    });

    // Past what is creditable: 409 with the amount and its currency, nothing written.
    const over = await credit(ws, inv.id, { amount_minor: 1101, reason: "too much" });
    expect(over.status).toBe(409);
    expect(over.json).toMatchObject({
      reason: "credit_exceeds_creditable",
      creditable_minor: 1100,
      requested_minor: 1101,
      currency: "EUR",
    });
    expect(await db().creditNote.count({ where: { invoiceId: inv.id } })).toBe(1);

    // The rest: the invoice is paid by the credit (nothing left), no money moved.
    const rest = await credit(ws, inv.id, { amount_minor: 1100, reason: "goodwill" });
    expect(rest.status).toBe(201);
    expect(seq(rest.json.number)).toBe(seq(first.json.number) + 1);
    const paid = (await api("GET", `/v1/workspaces/${ws}/invoices/${inv.id}`, { token: owner.token })).json;
    expect(paid).toMatchObject({
      status: "paid",
      credited_minor: 1500,
      amount_paid_minor: 0,
      amount_remaining_minor: 0,
    });
    expect(await db().walletEntry.count({ where: { workspaceId: ws, kind: "credit_note" } })).toBe(0);
    const none = await credit(ws, inv.id, { amount_minor: 1, reason: "again" });
    expect(none.json).toMatchObject({ reason: "credit_exceeds_creditable", creditable_minor: 0, currency: "EUR" });

    // Listed under the invoice, readable by the workspace; events and audit records.
    const list = await api("GET", `/v1/workspaces/${ws}/invoices/${inv.id}/credit-notes?order=asc`, {
      token: owner.token,
    });
    expect(list.status).toBe(200);
    expect(list.json.items.map((n: { number: string }) => n.number)).toEqual([first.json.number, rest.json.number]);
    const events = await db().outboxEvent.findMany({
      where: { workspaceId: ws, type: { in: ["credit_note.issued", "invoice.paid"] } },
      orderBy: { seq: "asc" },
    });
    expect(events.map((e) => e.type)).toEqual(["credit_note.issued", "credit_note.issued", "invoice.paid"]);
    expect(events[0]!.data).toMatchObject({
      id: first.json.id,
      number: first.json.number,
      amount_minor: 400,
      reduced_minor: 400,
      refunded_minor: 0,
      currency: "EUR",
      reason: "outage on Dec 12",
    });
    expect(events[2]!.data).toMatchObject({ method: "credit_note", status: "paid", currency: "EUR" });
    const audits = await db().auditRecord.findMany({
      where: { workspaceId: ws, targetId: inv.id, action: "billing.adjusted" },
    });
    expect(
      audits
        .map((a) => (a.details as { credit_note_number?: string }).credit_note_number)
        .filter(Boolean)
        .sort(),
    ).toEqual([first.json.number, rest.json.number].sort());

    // In the PDF: both notes, with their numbers and reasons.
    const pdf = await renderInvoicePdf(await getInvoiceDocument(ws, inv.id), "Capstan");
    const text = pdfText(pdf);
    for (const n of [first.json.number, rest.json.number, "goodwill", "outage on Dec 12", "Credit notes"])
      expect(text).toContain(n);
    expect((await PDFDocument.load(pdf)).getPageCount()).toBeGreaterThan(0);
  });

  it("refund what was paid of a paid invoice to the wallet's paid balance, once, on the ledger", async () => {
    const { ws, inv } = await openInvoice();
    expect(
      (
        await api("POST", `/v1/platform/wallets/${ws}/adjustments`, {
          token: platformToken,
          body: { amount_minor: 1500, currency: "EUR", reason: "transfer" },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api("POST", `/v1/workspaces/${ws}/invoices/${inv.id}:pay`, {
          token: owner.token,
          body: { method: "wallet" },
        })
      ).json.status,
    ).toBe("paid");
    expect((await api("GET", `/v1/workspaces/${ws}/wallet`, { token: owner.token })).json.balances[0].paid_micros).toBe(
      0,
    );
    const n = await credit(ws, inv.id, { amount_minor: 250, reason: "overcharged seats" });
    expect(n.status, n.text).toBe(201);
    expect(n.json).toMatchObject({ amount_minor: 250, reduced_minor: 0, refunded_minor: 250, refund_to: "wallet" });
    expect((await api("GET", `/v1/workspaces/${ws}/invoices/${inv.id}`, { token: owner.token })).json).toMatchObject({
      status: "paid",
      amount_paid_minor: 1250,
      credited_minor: 250,
      amount_remaining_minor: 0,
    });
    const entries = await db().walletEntry.findMany({ where: { workspaceId: ws, kind: "credit_note" } });
    expect(entries.map((e) => [e.sourceKind, e.sourceId, Number(e.amountMicros), e.currency, e.grantId])).toEqual([
      ["credit_note", n.json.id, 2_500_000, "EUR", null],
    ]);
    expect((await api("GET", `/v1/workspaces/${ws}/wallet`, { token: owner.token })).json.balances[0].paid_micros).toBe(
      2_500_000,
    );
    // A void of a paid invoice stays refused; a second note takes at most the rest.
    expect((await credit(ws, inv.id, { amount_minor: 1251, reason: "x" })).json).toMatchObject({
      creditable_minor: 1250,
      currency: "EUR",
    });
  });

  it("concurrent credit notes never over-credit: of six racing 300s on 1500, exactly five succeed with consecutive numbers", async () => {
    const { ws, inv } = await openInvoice();
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) => credit(ws, inv.id, { amount_minor: 300, reason: `race ${i}` })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 201, 409]);
    const loser = racing.find((r) => r.status === 409)!;
    expect(loser.json).toMatchObject({ creditable_minor: 0, currency: "EUR" });
    const row = await db().invoice.findUniqueOrThrow({ where: { id: inv.id } });
    expect([Number(row.creditedMinor), row.status]).toEqual([1500, "paid"]);
    const numbers = racing
      .filter((r) => r.status === 201)
      .map((r) => seq(r.json.number))
      .sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 5 }, (_, i) => numbers[0]! + i));
  });

  it("only the platform issues them; the workspace reads them; a void invoice or another workspace's id is refused", async () => {
    const { ws, inv } = await openInvoice();
    expect((await credit(ws, inv.id, { amount_minor: 1, reason: "self-service" }, owner.token)).status).toBe(403);
    expect((await credit(ws, inv.id, { amount_minor: 0, reason: "zero" })).status).toBe(422);
    expect((await credit(ws, inv.id, { amount_minor: 5, reason: " " })).status).toBe(422);
    expect(
      (await api("GET", `/v1/workspaces/${ws}/invoices/${inv.id}/credit-notes`, { token: outsider.token })).status,
    ).toBe(403);
    const other = (await makeWorkspace(outsider.token)).id;
    expect(
      (await api("GET", `/v1/workspaces/${other}/invoices/${inv.id}/credit-notes`, { token: outsider.token })).status,
    ).toBe(404);
    expect((await credit(other, inv.id, { amount_minor: 5, reason: "wrong workspace" })).status).toBe(404);
    expect(
      (
        await api("POST", `/v1/platform/wallets/${ws}/invoices/${inv.id}:void`, {
          token: platformToken,
          body: { reason: "test" },
        })
      ).json.status,
    ).toBe("void");
    const refused = await credit(ws, inv.id, { amount_minor: 5, reason: "void" });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ reason: "invoice_not_creditable", invoice_status: "void" });
    // Append-only.
    await expect(db().$executeRaw`UPDATE credit_notes SET reason = 'x'`).rejects.toThrow(/append-only/);
  });
});
