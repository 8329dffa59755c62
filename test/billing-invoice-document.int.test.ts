import { randomBytes } from "node:crypto";
import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { issueInvoices } from "@/server/domain/billing/invoices.service";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { utcMonth } from "@/server/platform/time";
import { createContextInner } from "@/server/trpc/context";
import { createCallerFactory } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * The console's printable invoice (tRPC `billing.invoiceDocument`): owner and
 * admin read it with the billing profile it is addressed to; a viewer is
 * refused (it carries the address); another workspace's invoice id is 404
 * from the caller's own workspace and 403 from one they are not in.
 */
let owner: TTestUser;
let viewer: TTestUser;
let other: TTestUser;
let ws: string;
let otherWs: string;
let ivc: string;

function caller(user: TTestUser) {
  const ctx = createContextInner({
    correlationId: newId("evt"),
    transport: "trpc",
    request: { method: "GET", path: "/api/trpc/billing.invoiceDocument" },
    principal: { kind: "user", userId: user.userId, via: { kind: "session" } },
  });
  return createCallerFactory(appRouter)(ctx);
}

/** The HTTP status the call answers (a domain error's, carried as the tRPC error's cause; zod's 400 for bad input). */
async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    if (!(err instanceof TRPCError)) throw err;
    const cause = err.cause as { name?: string; status?: number } | undefined;
    if (cause?.name === "AppError" && cause.status) return cause.status;
    return err.code === "BAD_REQUEST" ? 400 : 500;
  }
}

beforeAll(async () => {
  await bootApp();
  [owner, viewer, other] = await Promise.all([makeUser(), makeUser(), makeUser()]);
  ws = (await makeWorkspace(owner.token)).id;
  otherWs = (await makeWorkspace(other.token)).id;
  expect(
    (
      await api("POST", `/v1/workspaces/${ws}/members`, {
        token: owner.token,
        body: { email: viewer.email, role: "viewer" },
      })
    ).status,
  ).toBe(201);
  const platformToken = await issueTokenForEmail("admin@example.com", 3600);
  const tier = `inv-${randomBytes(4).toString("hex")}`;
  expect(
    (
      await api("PUT", `/v1/platform/subscription-tiers/${tier}`, {
        token: platformToken,
        body: { name: "Invoice", plan: "team", currency: "EUR", monthly_price_minor: 1234, included_credit_minor: 0 },
      })
    ).status,
  ).toBe(200);
  expect((await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } })).status).toBe(
    200,
  );
  expect(
    (
      await api("PUT", `/v1/workspaces/${ws}/billing-profile`, {
        token: owner.token,
        body: {
          legal_name: "Print GmbH",
          email: "ap@print.example",
          address: { line1: "Weg 2", city: "Köln", postal_code: "50667", country: "DE" },
        },
      })
    ).status,
  ).toBe(200);
  const [inv] = await issueInvoices(ws, utcMonth(), new Date());
  ivc = inv!.id;
});

describe("printable invoice", () => {
  it("gives the owner the invoice, the workspace and whom it is billed to", async () => {
    const doc = await caller(owner).billing.invoiceDocument({ ws, ivc });
    expect(doc.invoice).toMatchObject({
      id: ivc,
      workspace_id: ws,
      currency: "EUR",
      subscription_minor: 1234,
      total_minor: 1234,
    });
    expect(doc.workspace.id).toBe(ws);
    expect(doc.bill_to).toMatchObject({
      configured: true,
      legal_name: "Print GmbH",
      address: { city: "Köln", country: "DE" },
    });
    // The same invoice as the REST list shows it.
    const listed = await api("GET", `/v1/workspaces/${ws}/invoices`, { token: owner.token });
    expect(listed.json.items).toContainEqual(doc.invoice);
  });

  it("refuses a viewer, and another workspace's caller: 404 from their own workspace, 403 from this one", async () => {
    expect(await status(caller(viewer).billing.invoiceDocument({ ws, ivc }))).toBe(403);
    expect(await status(caller(other).billing.invoiceDocument({ ws: otherWs, ivc }))).toBe(404);
    expect(await status(caller(other).billing.invoiceDocument({ ws, ivc }))).toBe(403);
    expect(await status(caller(owner).billing.invoiceDocument({ ws, ivc: "ivc_00000000000000000000000000" }))).toBe(
      404,
    );
    expect(await status(caller(owner).billing.invoiceDocument({ ws, ivc: "pay_00000000000000000000000000" }))).toBe(
      400,
    );
  });

  it("the console's tier editor list is for platform owners and admins only", async () => {
    expect(await status(caller(owner).billing.subscriptions.editableTiers({}))).toBe(403);
    const admin = await db().user.findUniqueOrThrow({ where: { email: "admin@example.com" } });
    const list = await caller({ userId: admin.id, email: admin.email, token: "" }).billing.subscriptions.editableTiers(
      {},
    );
    expect(list.items.length).toBeGreaterThan(0);
  });
});
