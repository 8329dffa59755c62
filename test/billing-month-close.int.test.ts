import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { closeDueMonths } from "@/server/domain/billing/month-close.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { roles } from "@/server/platform/roles";
import { loopsFor, startWorkers, stopWorkers, drainWorkers } from "@/server/workers/run";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * Nothing unbilled (issue #36 item 1; docs/decisions.md "Billing: month close
 * and test clocks"): a workspace on a test clock subscribes on December 28,
 * the workers are down while its clock moves to February 1, then they start
 * (and a second worker races them): December and January are each invoiced
 * exactly once, with each month's renewal fee. The operator's close is a
 * no-op for a closed month, by API and by CLI.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
let owner: TTestUser;
let platformToken: string;

beforeAll(async () => {
  process.env.CAPSTAN_TEST_CLOCKS = "1";
  process.env.CAPSTAN_BILLING_CLOSE_POLL_MS = "200";
  resetEnvCache();
  await bootApp();
  owner = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
});

afterAll(() => {
  stopWorkers();
  delete process.env.CAPSTAN_TEST_CLOCKS;
  delete process.env.CAPSTAN_BILLING_CLOSE_POLL_MS;
  resetEnvCache();
});

const TIER = { name: "Close", plan: "team", currency: "EUR", monthly_price_minor: 1500, included_credit_minor: 0 };

async function onClock(frozen: string) {
  const tier = `c-${randomBytes(4).toString("hex")}`;
  expect(
    (await api("PUT", `/v1/platform/subscription-tiers/${tier}`, { token: platformToken, body: TIER })).status,
  ).toBe(200);
  const ws = (await makeWorkspace(owner.token)).id;
  const clock = await api("POST", "/v1/platform/billing/test-clocks", {
    token: platformToken,
    body: { workspace_id: ws, frozen_time: frozen },
  });
  expect(clock.status, clock.text).toBe(201);
  const sub = await api("PUT", `/v1/workspaces/${ws}/subscription`, { token: owner.token, body: { tier } });
  expect(sub.status, sub.text).toBe(200);
  expect(sub.json.current_period_start).toBe(frozen);
  return { ws, tier, clock: clock.json as { id: string } };
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50)); // poll interval, not a wait for an outcome
  }
}

const advance = (clk: string, to: string, token = platformToken) =>
  api("POST", `/v1/platform/billing/test-clocks/${clk}:advance`, { token, body: { frozen_time: to } });
const close = (body: Record<string, unknown>, token = platformToken) =>
  api("POST", "/v1/platform/billing/closes", { token, body });

describe("month close", () => {
  it("workers down for two whole months, then started: both months invoiced exactly once, with each month's fee", async () => {
    const { ws, clock } = await onClock("2026-12-28T12:00:00.000Z");
    // The workers are down (none runs in this process) while the clock crosses December and January.
    expect((await advance(clock.id, "2027-02-01T06:00:00.000Z")).status).toBe(200);
    expect(await db().invoice.count({ where: { workspaceId: ws } })).toBe(0);

    // Start the billing loops, and race them with a second worker's ticks.
    startWorkers(loopsFor(roles()).filter((l) => l.name.startsWith("billing-")));
    const racers = Promise.all([closeDueMonths(), closeDueMonths(), closeDueMonths()]);
    await waitFor(
      "December and January closed",
      async () =>
        (await db().billingMonthClose.count({
          where: { workspaceId: ws, month: { in: ["2026-12", "2027-01"] }, status: "done" },
        })) === 2,
    );
    await racers;
    stopWorkers();
    await drainWorkers(10_000);

    const invoices = await db().invoice.findMany({ where: { workspaceId: ws }, orderBy: { month: "asc" } });
    expect(invoices.map((i) => [i.month, i.currency, Number(i.subscriptionMinor), Number(i.totalMinor)])).toEqual([
      ["2026-12", "EUR", 1500, 1500],
      ["2027-01", "EUR", 1500, 1500],
    ]);
    expect(await db().auditRecord.count({ where: { workspaceId: ws, action: "billing.invoice_issued" } })).toBe(2);
    const jobs = await db().billingMonthClose.findMany({ where: { workspaceId: ws }, orderBy: { month: "asc" } });
    // November (the workspace's first month, nothing to bill), December and January; February is not over.
    expect(jobs.map((j) => [j.month, j.status, j.invoices])).toEqual([
      ["2026-11", "done", 0],
      ["2026-12", "done", 1],
      ["2027-01", "done", 1],
    ]);
    // January's renewal was written by the catch-up even if the renewal loop had not run first.
    expect(
      (await db().subscriptionPeriod.findMany({ where: { workspaceId: ws }, orderBy: { periodStart: "asc" } })).map(
        (p) => p.periodStart.toISOString(),
      ),
    ).toEqual(["2026-12-28T12:00:00.000Z", "2027-01-28T12:00:00.000Z"]);

    // The operator's close of a closed month is a no-op, by API and by CLI.
    const again = await close({ month: "2027-01", workspace_id: ws });
    expect(again.status, again.text).toBe(200);
    expect(again.json).toEqual({
      month: "2027-01",
      workspaces: [{ workspace_id: ws, status: "already_closed", invoice_ids: [invoices[1]!.id] }],
    });
    const cli = await promisify(execFile)(
      process.execPath,
      [path.join(ROOT, "bin", "capstan.mjs"), "billing", "close", "--month", "2026-12", "--workspace", ws],
      {
        cwd: ROOT,
        env: { ...process.env, LOG_LEVEL: "warn" },
      },
    );
    expect(cli.stdout).toContain(`${ws} already_closed ${invoices[0]!.id}`);
    expect(await db().invoice.count({ where: { workspaceId: ws } })).toBe(2);
  }, 120_000);

  it("an operator closes one past month on demand (earlier months queued); a month not over, a clock moved back, a non-admin are refused", async () => {
    const { ws, clock } = await onClock("2026-12-10T00:00:00.000Z");
    expect((await advance(clock.id, "2027-03-15T00:00:00.000Z")).status).toBe(200);
    const r = await close({ month: "2027-01", workspace_id: ws });
    expect(r.status, r.text).toBe(200);
    expect(r.json.workspaces).toEqual([
      { workspace_id: ws, status: "closed", invoice_ids: [expect.stringMatching(/^ivc_/)] },
    ]);
    const jan = await db().invoice.findUniqueOrThrow({ where: { id: r.json.workspaces[0].invoice_ids[0] } });
    expect([jan.month, Number(jan.subscriptionMinor)]).toEqual(["2027-01", 1500]);
    // Earlier months are queued (not lost), later ones not yet; the worker then closes them.
    const queued = await db().billingMonthClose.findMany({ where: { workspaceId: ws }, orderBy: { month: "asc" } });
    expect(queued.map((j) => [j.month, j.status])).toEqual([
      ["2026-11", "pending"],
      ["2026-12", "pending"],
      ["2027-01", "done"],
    ]);
    await closeDueMonths();
    expect(
      (await db().invoice.findMany({ where: { workspaceId: ws }, orderBy: { month: "asc" } })).map((i) => i.month),
    ).toEqual(["2026-12", "2027-01", "2027-02"]);

    const notOver = await close({ month: "2027-03", workspace_id: ws });
    expect(notOver.status).toBe(422);
    expect(notOver.json.reason).toBe("month_not_over");
    expect((await close({ month: "2027-13", workspace_id: ws })).status).toBe(422);
    expect((await close({ month: "2027-01", workspace_id: `ws_${"0".repeat(26)}` })).status).toBe(404);
    const back = await advance(clock.id, "2027-03-01T00:00:00.000Z");
    expect(back.status).toBe(422);
    expect(back.json.reason).toBe("clock_backwards");
    expect((await close({ month: "2027-01", workspace_id: ws }, owner.token)).status).toBe(403);
    expect((await advance(clock.id, "2027-04-01T00:00:00.000Z", owner.token)).status).toBe(403);
    // A second clock on the same workspace, or a clock on a workspace that already bills: 409.
    expect(
      (
        await api("POST", "/v1/platform/billing/test-clocks", {
          token: platformToken,
          body: { workspace_id: ws, frozen_time: "2027-01-01T00:00:00.000Z" },
        })
      ).status,
    ).toBe(409);
  });

  it("test clocks do not exist where CAPSTAN_TEST_CLOCKS is off", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    process.env.CAPSTAN_TEST_CLOCKS = "0";
    resetEnvCache();
    try {
      const r = await api("POST", "/v1/platform/billing/test-clocks", {
        token: platformToken,
        body: { workspace_id: ws, frozen_time: "2027-01-01T00:00:00.000Z" },
      });
      expect(r.status).toBe(404);
      expect(r.json.reason).toBe("test_clocks_disabled");
    } finally {
      process.env.CAPSTAN_TEST_CLOCKS = "1";
      resetEnvCache();
    }
    expect(await db().billingTestClock.count({ where: { workspaceId: ws } })).toBe(0);
  });
});
