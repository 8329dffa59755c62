import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventData, writeRecords, type TRecord } from "@/server/bridge/record-statement";
import { budgetId, ensureMonthBudgets } from "@/server/domain/usage/budget.service";
import { admitUsage, finishTicket, returnLeases, type TTicket } from "@/server/domain/usage/leases.service";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { utcMonth } from "@/server/platform/time";
import { api } from "./support/api";
import { bootBridgeApp, kvCapability, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";

/**
 * The Bridge's two record statements (bridge/record-statement.ts): a lone record (scalar values) and a batch
 * (arrays, unnested) write the same invocation row, the same events and the same settlement. Each record is
 * read back column by column and event by event; the budget's figures are read after each write.
 */

let s: TBridgeSetup;
let other: TBridgeSetup;

beforeAll(async () => {
  await bootBridgeApp();
  s = await setupBridge({ capabilities: [kvCapability()] });
  other = await setupBridge({ capabilities: [kvCapability()] });
});

afterAll(async () => {
  await returnLeases();
});

const sha = (v: string) => createHash("sha256").update(v).digest("hex");

function record(w: TBridgeSetup, over: Partial<TRecord> = {}): TRecord {
  const id = newId("cap");
  const at = new Date(Date.now() - 5);
  const request = { id: `req_${randomBytes(4).toString("hex")}`, action: "get", key: "k\u00e9y 'quoted' \"x\"" };
  return {
    id,
    workspaceId: w.ws,
    productId: w.productId,
    revisionId: w.revisionId,
    serviceIdentityId: w.svc.id,
    deploymentId: null,
    executionId: null,
    bridgeInvocationId: `binv_${randomBytes(6).toString("hex")}`,
    environmentType: "preview",
    capability: "data.kv",
    action: "get",
    request,
    requestDescribed: true,
    requestSummary: { sha256: sha(JSON.stringify(request)), size_bytes: 42 },
    outcome: "completed",
    reason: null,
    provider: null,
    bindingId: null,
    fallbackUsed: false,
    usage: { units: 3, unit: "tokens" },
    outputSummary: { sha256: sha("out"), size_bytes: 3 },
    correlationId: newId("evt"),
    requestedAt: at,
    finishedAt: new Date(),
    latencyMs: 5,
    overheadMs: 1,
    audits: [],
    settle: null,
    ...over,
  };
}

type TRow = Record<string, unknown>;

async function readBack(r: TRecord): Promise<{ row: TRow; events: TRow[] }> {
  // platform-scoped: the test reads the rows the statement wrote, by id.
  const [row] = await db().$queryRaw<TRow[]>`
    SELECT workspace_id, product_id, revision_id, service_identity_id, bridge_invocation_id, capability, action, outcome,
           reason, provider, binding_id, fallback_used, usage_units, usage_unit, request_summary, output_summary,
           correlation_id, latency_ms, overhead_ms, requested_at, finished_at, charge_micros
      FROM capability_invocations WHERE id = ${r.id}`;
  // platform-scoped: as above.
  const events = await db().$queryRaw<TRow[]>`
    SELECT workspace_id, type, version, source, subject, correlation_id, data, created_at
      FROM outbox_events WHERE subject = ${r.id} ORDER BY seq`;
  return { row: row!, events };
}

async function expectWritten(r: TRecord): Promise<void> {
  const { row, events } = await readBack(r);
  expect(row).toEqual({
    workspace_id: r.workspaceId,
    product_id: r.productId,
    revision_id: r.revisionId,
    service_identity_id: r.serviceIdentityId,
    bridge_invocation_id: r.bridgeInvocationId,
    capability: r.capability,
    action: r.action,
    outcome: r.outcome,
    reason: r.reason,
    provider: r.provider,
    binding_id: r.bindingId,
    fallback_used: r.fallbackUsed,
    usage_units: r.usage.units,
    usage_unit: r.usage.unit,
    request_summary: { ...r.requestSummary, request: r.request },
    output_summary: r.outputSummary,
    correlation_id: r.correlationId,
    latency_ms: r.latencyMs,
    overhead_ms: r.overheadMs,
    requested_at: r.requestedAt,
    finished_at: r.finishedAt,
    charge_micros: null,
  });
  const { requested, resulted } = eventData(r);
  const expected = [
    ...(r.requestDescribed
      ? [{ type: "capability.invocation_requested", data: requested, created_at: r.requestedAt }]
      : []),
    { type: "capability.invocation_resulted", data: resulted, created_at: r.finishedAt },
  ];
  expect(events).toEqual(
    expected.map((e) => ({
      workspace_id: r.workspaceId,
      type: e.type,
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      source: `/v1/workspaces/${r.workspaceId}`,
      subject: r.id,
      correlation_id: r.correlationId,
      data: JSON.parse(JSON.stringify(e.data)),
      created_at: e.created_at,
    })),
  );
}

async function budget(w: TBridgeSetup): Promise<{ used: number; reserved: number }> {
  await ensureMonthBudgets(w.ws);
  const id = budgetId(w.ws, "ai_tokens", utcMonth());
  // platform-scoped: the test reads one budget row by id.
  const [b] = await db().$queryRaw<Array<{ used_units: number; reserved_units: number }>>`
    SELECT used_units, reserved_units FROM budgets WHERE id = ${id}`;
  return { used: b!.used_units, reserved: b!.reserved_units };
}

async function admit(w: TBridgeSetup, id: string, units: number): Promise<TTicket> {
  const r = await admitUsage(w.ws, "ai_tokens", units, { bindingIds: [], invocationId: id, hold: null });
  if (!r.ok) throw new Error(`not admitted: ${r.why}`);
  return r.ticket;
}

describe("the Bridge's record statements", () => {
  it("a lone record and a batch write the same row, events and settlement (lease draws)", async () => {
    const before = await budget(s);
    const lone = record(s);
    const t1 = await admit(s, lone.id, 10);
    expect(t1.kind).toBe("draw");
    lone.settle = { ticket: t1, units: 7, usedBindingId: null };
    await writeRecords([lone]);
    finishTicket(t1);
    await expectWritten(lone);

    // A batch of three: two draws (one without a described request, one without output) and one unsettled.
    const a = record(s);
    const b = record(s, {
      requestDescribed: false,
      outputSummary: null,
      outcome: "failed",
      reason: "provider_unavailable",
    });
    const c = record(other, { usage: { units: 0, unit: "tokens" } });
    a.settle = { ticket: await admit(s, a.id, 10), units: 5, usedBindingId: null };
    b.settle = { ticket: await admit(s, b.id, 10), units: 0, usedBindingId: null };
    await writeRecords([a, b, c]);
    for (const r of [a, b]) finishTicket(r.settle!.ticket);
    for (const r of [a, b, c]) await expectWritten(r);

    // A lone record without a described request writes its one event.
    const d = record(other, { requestDescribed: false });
    await writeRecords([d]);
    await expectWritten(d);

    await returnLeases();
    const after = await budget(s);
    expect(after.used - before.used).toBe(7 + 5 + 0);
    expect(after.reserved).toBe(before.reserved);
    expect((await budget(other)).used).toBe(0);
  });

  it("a lone record settles a per-call reservation (no lease fits the headroom)", async () => {
    await returnLeases();
    const before = await budget(s);
    // Headroom for one call of 10 but not a lease of 16 such calls.
    const put = await api("PUT", `/v1/workspaces/${s.ws}/budgets/ai_tokens`, {
      token: s.owner.token,
      body: { limit_units: before.used + 20 },
    });
    expect(put.status).toBe(200);
    const r = record(s);
    const ticket = await admit(s, r.id, 10);
    expect(ticket.kind).toBe("reservation");
    expect((await budget(s)).reserved).toBe(before.reserved + 10);
    r.settle = { ticket, units: 4, usedBindingId: null };
    await writeRecords([r]);
    finishTicket(ticket);
    await expectWritten(r);
    expect(await budget(s)).toEqual({ used: before.used + 4, reserved: before.reserved });
  });

  it("writes nothing of a record whose row is refused, lone or batched", async () => {
    const bad = record(s, { productId: null as unknown as string });
    await expect(writeRecords([bad])).rejects.toThrow();
    const good = record(s);
    await expect(writeRecords([good, bad])).rejects.toThrow();
    for (const r of [bad, good]) {
      const { row, events } = await readBack(r);
      expect(row).toBeUndefined();
      expect(events).toEqual([]);
    }
  });
});
