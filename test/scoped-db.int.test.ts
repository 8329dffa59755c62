import { beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import {
  CHILD_SCOPES,
  PLATFORM_GLOBAL,
  scopedDb,
  scopeKind,
  TenancyViolation,
  workspaceOwnedModels,
} from "@/server/platform/db/scoped";
import { newId } from "@/server/platform/ids";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { seedTenant, type TTenantFixture } from "./support/tenant-fixtures";

/**
 * Issue #15 item 6: the scoped client of workspace A cannot read, update,
 * delete or create rows of workspace B, for EVERY model of the Prisma schema
 * (iterated from the generated client, so a new model is covered, or fails
 * here until it is classified). B is the victim workspace of
 * test/support/tenant-fixtures.ts (real rows in most tables); A is an empty
 * workspace, so "A's view" must be empty and "A's bulk writes" must touch
 * nothing of B's.
 */
type TDelegate = {
  findMany: (a?: unknown) => Promise<Array<Record<string, unknown>>>;
  findFirst: (a?: unknown) => Promise<Record<string, unknown> | null>;
  count: (a?: unknown) => Promise<number>;
  aggregate: (a: unknown) => Promise<{ _count: number }>;
  updateMany: (a: unknown) => Promise<{ count: number }>;
  deleteMany: (a?: unknown) => Promise<{ count: number }>;
  update: (a: unknown) => Promise<unknown>;
  delete: (a: unknown) => Promise<unknown>;
  create: (a: unknown) => Promise<Record<string, unknown>>;
  createMany: (a: unknown) => Promise<unknown>;
  upsert: (a: unknown) => Promise<unknown>;
};

let V: TTenantFixture;
let wsA: string;
const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const models = () => Object.values(Prisma.ModelName).map(lowerFirst);
const delegate = (client: unknown, model: string) => (client as Record<string, TDelegate>)[model]!;

/** B's rows of a model (through the base client): by workspaceId, through the parent for child models. */
function victimWhere(model: string): Record<string, unknown> {
  const kind = scopeKind(model);
  if (kind === "workspace") return { id: V.ws };
  if (kind === "owned") return { workspaceId: V.ws };
  const child = CHILD_SCOPES[model as keyof typeof CHILD_SCOPES];
  return { [child.relation]: { workspaceId: V.ws } };
}

async function victimDigest(): Promise<string> {
  const out: string[] = [];
  for (const m of models()) {
    if (scopeKind(m) === "global") continue;
    const rows = await delegate(db(), m).findMany({ where: victimWhere(m) });
    out.push(
      `${m}:${rows.length}:${JSON.stringify(rows, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}`,
    );
  }
  return out.join("\n");
}

beforeAll(async () => {
  await bootBridgeApp();
  V = await seedTenant();
  // A bare workspace row: A owns nothing yet.
  wsA = newId("ws");
  await db().workspace.create({ data: { id: wsA, name: "A", createdById: V.owner.userId } });
  // Rows of the child tables (the seed's workers left them empty): an attempt, a reservation, a resource use.
  const delivery = await db().webhookDelivery.findFirstOrThrow({ where: { workspaceId: V.ws } });
  await db().webhookAttempt.create({
    data: { id: newId("wat"), deliveryId: delivery.id, attempt: 1, statusCode: 500, durationMs: 3 },
  });
  const budget = await db().budget.findFirstOrThrow({ where: { workspaceId: V.ws } });
  await db().budgetReservation.create({
    data: { id: newId("rsv"), budgetId: budget.id, units: 1, expiresAt: new Date(Date.now() + 60_000) },
  });
  await db().managedResourceUse.create({
    data: { deploymentId: V.ids.dep!, resourceId: V.ids.mres!, envVar: "DATABASE_URL" },
  });
}, 300_000);

describe("scopedDb(workspace): the scoped data layer, for every model of the schema", () => {
  it("classifies every model: workspace-owned (workspaceId), a child of one, the workspace itself, or platform-global with a reason", () => {
    const unclassified = models().filter((m) => scopeKind(m) === "unclassified");
    expect(unclassified).toEqual([]);
    expect(workspaceOwnedModels().size).toBeGreaterThan(35);
    for (const [m, reason] of Object.entries(PLATFORM_GLOBAL)) {
      expect(models(), m).toContain(m);
      expect(reason.length).toBeGreaterThan(10);
    }
    for (const m of Object.keys(CHILD_SCOPES)) expect(scopeKind(m)).toBe("child");
  });

  it("reads: A's client sees none of B's rows on any model (findMany, findFirst by id, count, aggregate); B's client sees exactly B's", async () => {
    let withRows = 0;
    for (const m of models()) {
      if (scopeKind(m) === "global") {
        await expect(delegate(scopedDb(wsA), m).findMany(), m).rejects.toThrow(TenancyViolation);
        continue;
      }
      const victims = await delegate(db(), m).findMany({ where: victimWhere(m) });
      if (victims.length) withRows++;
      // A owns nothing but its own workspace row.
      const own = scopeKind(m) === "workspace" ? 1 : 0;
      expect(
        (await delegate(scopedDb(wsA), m).findMany()).map((r) => r.id ?? r),
        m,
      ).toEqual(own ? [wsA] : []);
      expect(await delegate(scopedDb(wsA), m).count(), m).toBe(own);
      expect((await delegate(scopedDb(wsA), m).aggregate({ _count: true }))._count, m).toBe(own);
      expect(await delegate(scopedDb(V.ws), m).count(), m).toBe(victims.length);
      for (const row of victims) {
        if (typeof row.id !== "string") continue;
        expect(await delegate(scopedDb(wsA), m).findFirst({ where: { id: row.id } }), `${m} ${row.id}`).toBeNull();
      }
    }
    // The seed holds real rows in most tables: the id lookups above ran on them.
    expect(withRows).toBeGreaterThan(30);
  });

  it("writes: A's bulk and by-id updates and deletes touch none of B's rows; naming B in data is refused", async () => {
    const before = await victimDigest();
    for (const m of models()) {
      const kind = scopeKind(m);
      if (kind === "global") continue;
      const A = delegate(scopedDb(wsA), m);
      const victims = await delegate(db(), m).findMany({ where: victimWhere(m) });
      for (const row of victims.slice(0, 3)) {
        if (typeof row.id !== "string") continue;
        // A unique where is scoped too: "not found" (P2025), never B's row.
        await expect(A.update({ where: { id: row.id }, data: {} }), `${m} update`).rejects.toMatchObject({
          code: "P2025",
        });
        await expect(A.delete({ where: { id: row.id } }), `${m} delete`).rejects.toMatchObject({ code: "P2025" });
      }
      if (kind === "workspace") continue; // deleting A's workspace row would end the test's A
      expect((await A.updateMany({ where: {}, data: {} })).count, m).toBe(0);
      expect((await A.deleteMany({})).count, m).toBe(0);
      if (kind === "owned") {
        await expect(A.create({ data: { workspaceId: V.ws } }), `${m} create`).rejects.toThrow(TenancyViolation);
        await expect(A.createMany({ data: [{ workspaceId: V.ws }] }), `${m} createMany`).rejects.toThrow(
          TenancyViolation,
        );
        await expect(A.updateMany({ where: {}, data: { workspaceId: V.ws } }), `${m} move`).rejects.toThrow(
          TenancyViolation,
        );
        await expect(
          A.upsert({ where: { id: "x" }, create: { workspaceId: V.ws }, update: {} }),
          `${m} upsert`,
        ).rejects.toThrow(TenancyViolation);
      }
    }
    expect(await victimDigest()).toBe(before);
  });

  it("creates fill in the workspace; a child row is created only under a parent of the workspace", async () => {
    const plan = await scopedDb(wsA).plan.create({ data: { plan: "free" } as Prisma.PlanUncheckedCreateInput });
    expect(plan.workspaceId).toBe(wsA);
    const budgetB = await db().budget.findFirstOrThrow({ where: { workspaceId: V.ws } });
    const before = await db().budgetReservation.count();
    // A's client, B's budget: the connect finds no budget of A (P2025), nothing is written.
    await expect(
      scopedDb(wsA).budgetReservation.create({
        data: { id: newId("rsv"), budgetId: budgetB.id, units: 1, expiresAt: new Date() },
      }),
    ).rejects.toMatchObject({ code: "P2025" });
    expect(await db().budgetReservation.count()).toBe(before);
    // B's client, B's budget: created.
    const ok = await scopedDb(V.ws).budgetReservation.create({
      data: { id: newId("rsv"), budgetId: budgetB.id, units: 1, expiresAt: new Date() },
    });
    expect(ok.budgetId).toBe(budgetB.id);
    await expect(
      scopedDb(wsA).workspace.create({ data: { id: newId("ws"), name: "x", createdById: V.owner.userId } }),
    ).rejects.toThrow(TenancyViolation);
  });

  it("interactive transactions of the scoped client are scoped too", async () => {
    const seen = await scopedDb(wsA).$transaction(async (tx) => {
      const products = await tx.product.findMany();
      const byId = await tx.product.findUnique({ where: { id: V.ids.prod! } });
      return { products, byId };
    });
    expect(seen).toEqual({ products: [], byId: null });
    await expect(
      scopedDb(wsA).$transaction(async (tx) =>
        tx.kvEntry.create({
          data: {
            workspaceId: V.ws,
            productId: V.ids.prod!,
            key: "/x",
            value: "1",
          } as Prisma.KvEntryUncheckedCreateInput,
        }),
      ),
    ).rejects.toThrow(TenancyViolation);
    const own = await scopedDb(V.ws).$transaction((tx) => tx.product.findUnique({ where: { id: V.ids.prod! } }));
    expect(own?.id).toBe(V.ids.prod);
  });

  it("the workspace row itself: A's client reads only A's workspace", async () => {
    expect((await scopedDb(wsA).workspace.findMany()).map((w) => w.id)).toEqual([wsA]);
    expect(await scopedDb(wsA).workspace.findUnique({ where: { id: V.ws } })).toBeNull();
    expect(scopedDb(wsA)).toBe(scopedDb(wsA));
  });
});
