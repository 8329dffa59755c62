import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { closeDueMonths } from "@/server/domain/billing/month-close.service";
import { measureStorage } from "@/server/domain/billing/pricing-metered.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * Every metered category priced (issue #36 item 8; docs/decisions.md
 * "Billing: every metered category priced"): the platform's cards
 * capstan/runtime, capstan/storage and capstan/email are immutable versions
 * like the token cards; the month's invoice has one line per category and
 * card version with the measured quantity, its unit and the unit price, each
 * exact in integers and rounded once half up; the amount is debited from the
 * wallet and what the paid balance cannot cover is due on the invoice.
 *
 * The executions and email calls are written as the runner and the Bridge
 * record them (their deployment, session and product rows are beside the
 * point here and are not built: foreign keys are not checked for those seed
 * rows, session_replication_role = replica); the storage figure is the real
 * daily measurement over the workspace's KV values.
 */
let owner: TTestUser;
let platformToken: string;

beforeAll(async () => {
  process.env.CAPSTAN_TEST_CLOCKS = "1";
  resetEnvCache();
  await bootApp();
  owner = await makeUser();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
});

afterAll(async () => {
  delete process.env.CAPSTAN_TEST_CLOCKS;
  resetEnvCache();
});

const card = (model: string, prices: Record<string, number>, effective_from?: string) =>
  api("PUT", `/v1/platform/rate-cards/capstan/${model}`, {
    token: platformToken,
    body: {
      currency: "EUR",
      ...(effective_from ? { effective_from } : {}),
      prices: { input_tokens_per_million: 0, output_tokens_per_million: 0, per_call: 0, ...prices },
    },
  });

async function seedExecution(
  ws: string,
  at: string,
  usage: { duration_ms: number; cpu_ms: number | null },
): Promise<void> {
  const execution = JSON.stringify({ status: "completed", usage: { ...usage, memory_peak_bytes: null } });
  await db().$transaction(async (tx) => {
    await tx.$executeRaw`SET LOCAL session_replication_role = replica`;
    await tx.$executeRaw`
      INSERT INTO invocations (id, workspace_id, product_id, session_id, surface_id, access_id, sequence, input, execution, correlation_id, created_at, updated_at)
      VALUES (${newId("inv")}, ${ws}, ${newId("prod")}, ${newId("ses")}, ${newId("srf")}, ${newId("acc")}, 1, '{}'::jsonb, ${execution}::jsonb, ${newId("evt")}, ${new Date(at)}, ${new Date(at)})`;
  });
}

async function seedEmail(ws: string, at: string, outcome: string): Promise<void> {
  await db().$transaction(async (tx) => {
    await tx.$executeRaw`SET LOCAL session_replication_role = replica`;
    await tx.$executeRaw`
      INSERT INTO capability_invocations (id, workspace_id, product_id, capability, action, outcome, usage_units, usage_unit, request_summary, correlation_id, requested_at)
      VALUES (${newId("cap")}, ${ws}, ${newId("prod")}, 'email.send', 'send', ${outcome}, 1, 'calls', '{}'::jsonb, ${newId("evt")}, ${new Date(at)})`;
  });
}

describe("every metered category priced", () => {
  it("the platform's cards price only their category; other cards never price one", async () => {
    const wrong = await card("runtime", { per_call: 5, per_cpu_second: 10 });
    expect(wrong.status).toBe(422);
    expect(wrong.json).toMatchObject({ reason: "price_not_applicable", errors: [{ path: "/prices/per_call" }] });
    expect((await card("cpu", { per_cpu_second: 10 })).json.reason).toBe("unknown_metered_category");
    const other = await api("PUT", `/v1/platform/rate-cards/openai-${randomBytes(3).toString("hex")}/gpt`, {
      token: platformToken,
      body: {
        currency: "EUR",
        prices: { input_tokens_per_million: 1, output_tokens_per_million: 1, per_call: 0, per_message: 7 },
      },
    });
    expect(other.status).toBe(422);
    expect(other.json.errors).toEqual([{ path: "/prices/per_message", message: expect.stringContaining("must be 0") }]);
  });

  it("runtime (CPU-seconds, two card versions), storage (GB-month from the daily measurement) and email (per message) are invoice lines, exact and due", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    const clock = (
      await api("POST", "/v1/platform/billing/test-clocks", {
        token: platformToken,
        body: { workspace_id: ws, frozen_time: "2026-12-01T06:00:00.000Z" },
      })
    ).json as { id: string };
    const advance = async (to: string) =>
      expect(
        (
          await api("POST", `/v1/platform/billing/test-clocks/${clock.id}:advance`, {
            token: platformToken,
            body: { frozen_time: to },
          })
        ).status,
      ).toBe(200);
    const v1 = await card("runtime", { per_cpu_second: 12_345 });
    expect(v1.status, v1.text).toBe(200);
    expect(v1.json.prices).toMatchObject({ per_cpu_second: 12_345, per_gb_month: 0, per_message: 0 });
    const v2 = await card("runtime", { per_cpu_second: 20_000 }, "2026-12-10T00:00:00.000Z");
    expect(v2.status, v2.text).toBe(200);
    const storage = (await card("storage", { per_gb_month: 200_000 })).json;
    const email = (await card("email", { per_message: 1_000 })).json;

    await seedExecution(ws, "2026-12-03T10:00:00.000Z", { duration_ms: 4000, cpu_ms: 1501 });
    await seedExecution(ws, "2026-12-05T10:00:00.000Z", { duration_ms: 1000, cpu_ms: null }); // not measurable: its wall time
    await seedExecution(ws, "2026-12-12T10:00:00.000Z", { duration_ms: 9000, cpu_ms: 2500 });
    await seedExecution(ws, "2027-01-01T00:00:00.000Z", { duration_ms: 9000, cpu_ms: 9999 }); // January's
    for (const outcome of ["completed", "completed", "failed", "completed"])
      await seedEmail(ws, "2026-12-20T08:00:00.000Z", outcome);

    // 0.2 GB held from December 1 (measured that day), 0.4 GB from December 16 (measured twice that day: the high-water mark).
    const kv = (bytes: number) => db().$executeRaw`
      INSERT INTO kv_entries (workspace_id, product_id, key, value, value_bytes) VALUES (${ws}, 'prod_x', '/big', '{}'::jsonb, ${bytes})
      ON CONFLICT (workspace_id, product_id, key) DO UPDATE SET value_bytes = EXCLUDED.value_bytes`;
    await kv(200_000_000);
    expect(await measureStorage()).toBeGreaterThan(0);
    await advance("2026-12-16T01:00:00.000Z");
    await kv(400_000_000);
    await measureStorage();
    await kv(100_000_000);
    await measureStorage();
    const days = await db().$queryRaw<
      { day: string; bytes: bigint }[]
    >`SELECT day::text AS day, bytes FROM storage_measurements WHERE workspace_id = ${ws} ORDER BY day`;
    expect(days.map((d) => [d.day, Number(d.bytes)])).toEqual([
      ["2026-12-01", 200_000_000],
      ["2026-12-16", 400_000_000],
    ]);

    await advance("2027-01-02T00:00:00.000Z");
    await closeDueMonths();
    const [inv] = (await api("GET", `/v1/workspaces/${ws}/invoices`, { token: owner.token })).json.items;
    const metered = inv.lines.filter((l: { kind: string }) => l.kind === "metered");
    expect(metered).toEqual([
      // 1501 + 1000 (wall time) CPU-ms at 12 345 micros per CPU-second: 30 874.845 -> 30 875.
      {
        kind: "metered",
        category: "runtime",
        rate_card_version_id: v1.json.id,
        quantity: 2501,
        unit: "cpu_ms",
        unit_price_micros: 12_345,
        price_unit: "cpu_second",
        items: 2,
        estimated_items: 1,
        amount_micros: 30_875,
      },
      {
        kind: "metered",
        category: "runtime",
        rate_card_version_id: v2.json.id,
        quantity: 2500,
        unit: "cpu_ms",
        unit_price_micros: 20_000,
        price_unit: "cpu_second",
        items: 1,
        estimated_items: 0,
        amount_micros: 50_000,
      },
      {
        kind: "metered",
        category: "email",
        rate_card_version_id: email.id,
        quantity: 3,
        unit: "messages",
        unit_price_micros: 1_000,
        price_unit: "message",
        items: 3,
        amount_micros: 3_000,
      },
      // 15 days × 0.2 GB + 16 days × 0.4 GB = 9.4e9 byte-days = 0.303225 GB-months × 200 000 micros: 60 645.16 -> 60 645.
      {
        kind: "metered",
        category: "storage",
        rate_card_version_id: storage.id,
        quantity: 9_400_000_000,
        unit: "byte_days",
        unit_price_micros: 200_000,
        price_unit: "gb_month",
        items: 31,
        days_in_month: 31,
        amount_micros: 60_645,
      },
    ]);
    // 144 520 micros = 14.452 cents -> 14, half up once; the wallet had nothing, so all of it is due.
    expect(inv).toMatchObject({
      month: "2026-12",
      currency: "EUR",
      usage_micros: 144_520,
      granted_micros: 0,
      total_minor: 14,
      debt_minor: 14,
      amount_due_minor: 14,
      status: "open",
    });
    const debits = await db().walletEntry.findMany({ where: { workspaceId: ws, sourceKind: "metered_usage" } });
    expect(debits.map((e) => [e.sourceId, Number(e.amountMicros), e.kind])).toEqual([[inv.id, -144_520, "usage"]]);
    const wallet = (await api("GET", `/v1/workspaces/${ws}/wallet`, { token: owner.token })).json;
    expect(wallet.balances[0]).toMatchObject({ currency: "EUR", paid_micros: 0 }); // the debt moved onto the invoice
  });
});
