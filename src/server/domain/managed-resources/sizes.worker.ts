import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { utcMonth } from "@/server/platform/time";
import { budgetId, ensureMonthBudgets } from "@/server/domain/usage/budget.service";
import { change, limitsFor, lockRow, maxSizeBytesFor } from "./managed-resources.model";
import { MRES, type TMresState } from "./managed-resources.states";
import { applyConnectionLimit } from "./postgres-admin";
import { applyRoleConnectionLimits } from "./postgres-credentials";
import { databaseFacts, freezeDatabase, thawDatabase, vacuumDatabase, type TDbFacts } from "./size-limit";

/**
 * Sizes, every CAPSTAN_MRES_MEASURE_SECONDS per resource (docs/decisions.md
 * "Limits"): pg_database_size of every stale database in one
 * round trip, or the sum of a bucket's objects. Over the plan's size a
 * database turns read-only (size-limit.ts) and a bucket refuses writes
 * (delivery.ts, presign.ts read `failure`); under it again, both are writable.
 * The growth over this month's metered high-water mark is added to the
 * month's `storage` budget (bytes).
 *
 * Tenancy: the measuring scan is platform-scoped by design (every workspace's
 * resources); each write runs on scopedDb(row.workspaceId).
 */
const scrub = (s: string) => s.replace(/postgres(?:ql)?:\/\/[^\s]+/g, "[url]").slice(0, 500);

export async function measureManagedResources(limit = 200, now = new Date()): Promise<number> {
  const stale = new Date(now.getTime() - env().CAPSTAN_MRES_MEASURE_SECONDS * 1000);
  // platform-scoped: the measuring scan spans every workspace's resources.
  const rows = await db().managedResource.findMany({
    where: {
      status: { in: ["available", "deletion_scheduled"] },
      OR: [{ sizeMeasuredAt: null }, { sizeMeasuredAt: { lt: stale } }],
    },
    orderBy: { sizeMeasuredAt: { sort: "asc", nulls: "first" } },
    take: limit,
  });
  const dbs = rows
    .filter((r) => r.kind === "postgres" && r.dbName && r.roleName)
    .map((r) => ({ database: r.dbName!, role: r.roleName! }));
  let facts = new Map<string, TDbFacts>();
  try {
    facts = await databaseFacts(dbs);
    // A read-only database cannot VACUUM itself (the app owns nothing): do it, so its DELETEs show in the size.
    const frozen = dbs.filter((d) => facts.get(d.database)?.frozen);
    for (const d of frozen)
      await vacuumDatabase(d.database).catch((err) =>
        logger.warn("managed_resource.vacuum_failed", { database: d.database, error: scrub(String(err)) }),
      );
    if (frozen.length) for (const [k, v] of await databaseFacts(frozen)) facts.set(k, v);
  } catch (err) {
    logger.warn("managed_resource.measure_failed", { error: scrub(String(err)) });
  }
  const plans = new Map<string, string>();
  for (const r of rows) {
    try {
      if (!plans.has(r.workspaceId))
        plans.set(
          r.workspaceId,
          (await scopedDb(r.workspaceId).plan.findFirst({ select: { plan: true } }))?.plan ?? "free",
        );
      const plan = plans.get(r.workspaceId)!;
      let size: number;
      let readOnly = false;
      if (r.kind === "postgres") {
        const f = r.dbName ? facts.get(r.dbName) : undefined;
        if (!f || !r.roleName || !r.dbName) continue;
        size = f.size;
        // The plan may have changed since the role was made: its connection limit follows it.
        const conns = limitsFor(plan).connections;
        if (r.status === "available" && f.connLimit !== null && f.connLimit !== conns) {
          await applyConnectionLimit(r.roleName, conns);
          // The other login roles (a rotation's previous one, the read-only one) follow the plan too.
          const others = await scopedDb(r.workspaceId).managedResourceCredential.findMany({
            where: { resourceId: r.id, status: { in: ["active", "retiring"] }, roleName: { not: r.roleName } },
            select: { roleName: true },
          });
          await applyRoleConnectionLimits(
            others.map((c) => c.roleName),
            conns,
          );
        }
        const over = size > maxSizeBytesFor(plan);
        if (over && !f.frozen && r.status === "available") {
          await freezeDatabase({ database: r.dbName, role: r.roleName });
          logger.info("managed_resource.read_only", { resource_id: r.id, size_bytes: size });
        } else if (!over && f.frozen) {
          await thawDatabase({ database: r.dbName, role: r.roleName });
          logger.info("managed_resource.writable", { resource_id: r.id, size_bytes: size });
        }
        readOnly = over;
      } else {
        size = Number(
          (
            await scopedDb(r.workspaceId).storageObject.aggregate({
              where: { productId: r.id },
              _sum: { sizeBytes: true },
            })
          )._sum.sizeBytes ?? 0,
        );
        readOnly = size > maxSizeBytesFor(plan);
      }
      await recordSize(r.id, size, readOnly, now);
    } catch (err) {
      logger.warn("managed_resource.measure_failed", { resource_id: r.id, error: scrub(String(err)) });
    }
  }
  return rows.length;
}

async function recordSize(id: string, size: number, over: boolean, now: Date): Promise<void> {
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
      await tx.budget.update({
        where: { id: budgetId(r.workspaceId, "storage", month) },
        data: { usedUnits: { increment: growth }, updatedAt: now },
      });
    }
    const plan = (await tx.plan.findFirst({ select: { plan: true } }))?.plan ?? "free";
    const max = maxSizeBytesFor(plan);
    const what =
      r.kind === "postgres"
        ? "the database is read-only: INSERT, UPDATE and CREATE are refused (permission denied), DELETE and TRUNCATE still work"
        : "the bucket refuses new objects (409 size_limit_exceeded); GET and DELETE still work";
    const data = {
      sizeBytes: BigInt(size),
      sizeMeasuredAt: now,
      meteredMonth: month,
      meteredBytes: BigInt(Math.max(metered, size)),
      ...(over && r.failureCode !== "size_limit_exceeded"
        ? {
            failureCode: "size_limit_exceeded",
            failureMessage: `The resource holds ${size} bytes, over the ${plan} plan's ${max} bytes per resource, so ${what}. Delete data (it turns writable within ${env().CAPSTAN_MRES_MEASURE_SECONDS} s of being under the limit) or change the plan.`,
          }
        : !over && r.failureCode === "size_limit_exceeded"
          ? { failureCode: null, failureMessage: null }
          : {}),
    };
    if ("failureCode" in data)
      await change(tx, r, over ? "size_limit_exceeded" : "size_within_limit", data, newId("evt"));
    else await tx.managedResource.update({ where: { id }, data });
  });
}
