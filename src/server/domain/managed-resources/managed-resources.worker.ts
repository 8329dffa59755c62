import type { ManagedResource } from "@/generated/prisma/client";
import { unseal } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { utcMonth } from "@/server/platform/time";
import { budgetId, ensureMonthBudgets } from "@/server/domain/usage/budget.service";
import { change, limitsFor, lockRow, move, type TMres } from "./managed-resources.model";
import { MRES, type TMresState } from "./managed-resources.states";
import { databaseSize, destroyDatabase, provisionDatabase } from "./postgres-admin";

/**
 * The managed-resource worker. Claims rows (FOR UPDATE SKIP LOCKED, a
 * CLAIM_SECONDS lease) that need server work: `provisioning`,
 * `deletion_scheduled` past `destroy_after`, and `deleting`. The work on the
 * PostgreSQL server runs outside any transaction and is idempotent, so a
 * crash mid-step is simply retried after the lease. Results are written
 * against the row as it is then (a restore that landed meanwhile wins).
 *
 * Tenancy: the claim, the measuring scan and the first read of a claimed row
 * are platform-scoped by design (db(): every workspace's resources, by id);
 * every write after that runs on scopedDb(row.workspaceId).
 */
const CLAIM_SECONDS = 60;
const RETRY_SECONDS = 30;

export async function processManagedResources(limit = 10): Promise<number> {
  // platform-scoped: the claim spans every workspace's resources.
  const claimed = await db().$queryRaw<Array<{ id: string }>>`
    UPDATE "managed_resources" SET "claimed_until" = now() + make_interval(secs => ${CLAIM_SECONDS})
     WHERE "id" IN (
       SELECT "id" FROM "managed_resources"
        WHERE ("claimed_until" IS NULL OR "claimed_until" < now())
          AND ("status" IN ('provisioning', 'deleting') OR ("status" = 'deletion_scheduled' AND "destroy_after" <= now()))
        ORDER BY "updated_at" ASC
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING "id"`;
  for (const { id } of claimed) {
    await step(id).catch((err) => logger.error("managed_resource.step_crashed", { resource_id: id, error: scrub(String(err)) }));
  }
  return claimed.length;
}

/** Error text from the server may quote a statement: never let a secret through. */
const scrub = (s: string) => s.replace(/SCRAM-SHA-256\$[^\s']+/g, "[verifier]").replace(/postgres(?:ql)?:\/\/[^\s]+/g, "[url]").slice(0, 500);

async function step(id: string): Promise<void> {
  // platform-scoped: a claimed row by id, to learn its workspace.
  const r = await db().managedResource.findUniqueOrThrow({ where: { id }, omit: { sealedSecret: false } });
  if (r.status === "provisioning") return provision(r);
  if (r.status === "deletion_scheduled") {
    const moved = await scopedDb(r.workspaceId).$transaction(async (tx) => {
      const cur = await lockRow(tx, null, id);
      // Restored or attached meanwhile (a detached-only CHECK guards it as well).
      if (cur.status !== "deletion_scheduled" || cur.productId || !cur.destroyAfter || cur.destroyAfter > new Date()) return null;
      return move(tx, cur, "destroy", {}, newId("evt"));
    });
    if (moved) await destroy(moved);
    return;
  }
  if (r.status === "deleting") return destroy(r);
}

async function provision(r: ManagedResource): Promise<void> {
  let failure: string | null = null;
  try {
    if (r.kind === "postgres") {
      const { password } = JSON.parse(unseal(r.sealedSecret!, r.id)) as { password: string };
      await provisionDatabase({ role: r.roleName!, database: r.dbName!, password });
    }
    // object_bucket: a namespace in the platform blob store needs nothing created.
  } catch (err) {
    failure = scrub(String((err as Error)?.message ?? err));
  }
  await scopedDb(r.workspaceId).$transaction(async (tx) => {
    const cur = await lockRow(tx, null, r.id);
    if (cur.status !== "provisioning") return;
    if (failure === null) {
      await move(tx, cur, "provisioned", { claimedUntil: null, failureCode: null, failureMessage: null }, newId("evt"));
    } else {
      await move(tx, cur, "provision_failed", {
        claimedUntil: null, failureCode: "provision_failed",
        failureMessage: `Creating the ${cur.kind === "postgres" ? "database and role" : "bucket"} failed: ${failure}. Delete the resource and create it again; quote ${cur.id} if it persists.`,
      }, newId("evt"));
    }
  });
  logger.info("managed_resource.provisioned", { resource_id: r.id, kind: r.kind, ok: failure === null, error: failure });
}

async function destroy(r: TMres): Promise<void> {
  try {
    if (r.kind === "postgres" && r.dbName && r.roleName) await destroyDatabase({ role: r.roleName, database: r.dbName });
    if (r.kind === "object_bucket") await scopedDb(r.workspaceId).storageObject.deleteMany({ where: { productId: r.id } });
  } catch (err) {
    const message = scrub(String((err as Error)?.message ?? err));
    await scopedDb(r.workspaceId).managedResource.updateMany({
      where: { id: r.id, status: "deleting" },
      data: { failureCode: "destroy_failed", failureMessage: `Destroying the resource failed and will be retried: ${message}`, claimedUntil: new Date(Date.now() + RETRY_SECONDS * 1000), updatedAt: new Date() },
    });
    logger.error("managed_resource.destroy_failed", { resource_id: r.id, error: message });
    return;
  }
  await scopedDb(r.workspaceId).$transaction(async (tx) => {
    const cur = await lockRow(tx, null, r.id);
    if (cur.status !== "deleting") return;
    // The sealed password goes with the data: nothing can reveal it any more.
    await move(tx, cur, "destroyed", { deletedAt: new Date(), sealedSecret: null, claimedUntil: null, failureCode: null, failureMessage: null }, newId("evt"));
  });
  logger.info("managed_resource.destroyed", { resource_id: r.id, kind: r.kind });
}

/**
 * Sizes, every CAPSTAN_MRES_MEASURE_SECONDS per resource: pg_database_size
 * or the sum of a bucket's objects. The growth over this month's metered
 * high-water mark is added to the month's `storage` budget (bytes), and a
 * size over the plan's limit is shown as a failure (data kept).
 */
export async function measureManagedResources(limit = 20, now = new Date()): Promise<number> {
  const stale = new Date(now.getTime() - env().CAPSTAN_MRES_MEASURE_SECONDS * 1000);
  // platform-scoped: the measuring scan spans every workspace's resources.
  const rows = await db().managedResource.findMany({
    where: { status: { in: ["available", "deletion_scheduled"] }, OR: [{ sizeMeasuredAt: null }, { sizeMeasuredAt: { lt: stale } }] },
    orderBy: { sizeMeasuredAt: { sort: "asc", nulls: "first" } }, take: limit,
  });
  for (const r of rows) {
    try {
      const size = r.kind === "postgres"
        ? await databaseSize(r.dbName!)
        : Number((await scopedDb(r.workspaceId).storageObject.aggregate({ where: { productId: r.id }, _sum: { sizeBytes: true } }))._sum.sizeBytes ?? 0);
      if (size === null) continue;
      await recordSize(r.id, size, now);
    } catch (err) {
      logger.warn("managed_resource.measure_failed", { resource_id: r.id, error: scrub(String(err)) });
    }
  }
  return rows.length;
}

async function recordSize(id: string, size: number, now: Date): Promise<void> {
  const month = utcMonth(now);
  // platform-scoped: a measured row by id, to learn its workspace.
  const pre = await db().managedResource.findUniqueOrThrow({ where: { id }, select: { workspaceId: true } });
  await ensureMonthBudgets(pre.workspaceId, month);
  await scopedDb(pre.workspaceId).$transaction(async (tx) => {
    const r = await lockRow(tx, null, id);
    if (MRES.terminal.has(r.status as TMresState) || r.status === "deleting") return;
    const metered = r.meteredMonth === month ? Number(r.meteredBytes) : 0;
    const growth = size - metered;
    if (growth > 0) {
      await tx.budget.update({ where: { id: budgetId(r.workspaceId, "storage", month) }, data: { usedUnits: { increment: growth }, updatedAt: now } });
    }
    const plan = (await tx.plan.findFirst({ select: { plan: true } }))?.plan ?? "free";
    const max = limitsFor(plan).maxSizeBytes;
    const over = size > max;
    const data = {
      sizeBytes: BigInt(size), sizeMeasuredAt: now, meteredMonth: month, meteredBytes: BigInt(Math.max(metered, size)),
      ...(over && r.failureCode !== "size_limit_exceeded"
        ? { failureCode: "size_limit_exceeded", failureMessage: `The resource holds ${size} bytes, over the ${plan} plan's ${max} bytes per resource; the data is kept, but delete some or change the plan.` }
        : !over && r.failureCode === "size_limit_exceeded" ? { failureCode: null, failureMessage: null } : {}),
    };
    if ("failureCode" in data) await change(tx, r, over ? "size_limit_exceeded" : "size_within_limit", data, newId("evt"));
    else await tx.managedResource.update({ where: { id }, data });
  });
}
