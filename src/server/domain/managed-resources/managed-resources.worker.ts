import type { ManagedResource } from "@/generated/prisma/client";
import { unseal } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { limitsFor, lockRow, move, type TMres } from "./managed-resources.model";
import { databaseExists, destroyDatabase, provisionDatabase, scramVerifier } from "./postgres-admin";
import { createPrimaryRole, dropRoles } from "./postgres-credentials";
import { dropFrozenRole } from "./size-limit";
import { destroyBucket } from "./bucket-objects";
import { backupBeforeDestroy } from "./backups.worker";
import { attachedDeployments, queueRestarts } from "./credentials-restarts";

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
    await step(id).catch((err) =>
      logger.error("managed_resource.step_crashed", { resource_id: id, error: scrub(String(err)) }),
    );
  }
  return claimed.length;
}

/** Error text from the server may quote a statement: never let a secret through. */
const scrub = (s: string) =>
  s
    .replace(/SCRAM-SHA-256\$[^\s']+/g, "[verifier]")
    .replace(/postgres(?:ql)?:\/\/[^\s]+/g, "[url]")
    .slice(0, 500);

async function step(id: string): Promise<void> {
  // platform-scoped: a claimed row by id, to learn its workspace.
  const r = await db().managedResource.findUniqueOrThrow({ where: { id }, omit: { sealedSecret: false } });
  if (r.status === "provisioning") return provision(r);
  if (r.status === "deletion_scheduled") {
    const moved = await scopedDb(r.workspaceId).$transaction(async (tx) => {
      const cur = await lockRow(tx, null, id);
      // Restored or attached meanwhile (a detached-only CHECK guards it as well).
      if (cur.status !== "deletion_scheduled" || cur.productId || !cur.destroyAfter || cur.destroyAfter > new Date())
        return null;
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
      const plan = (await scopedDb(r.workspaceId).plan.findFirst({ select: { plan: true } }))?.plan ?? "free";
      // After a rotation the current login role is not the owner: it is completed as a member (the owner never regains LOGIN).
      if (r.roleName === r.dbName)
        await provisionDatabase({
          role: r.roleName!,
          database: r.dbName!,
          password,
          connectionLimit: limitsFor(plan).connections,
        });
      else
        await createPrimaryRole({
          owner: r.dbName!,
          role: r.roleName!,
          database: r.dbName!,
          verifier: scramVerifier(password),
          connectionLimit: limitsFor(plan).connections,
        });
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
      // Attached while it was being made: the product's running deployments restart to receive it.
      if (cur.productId)
        await queueRestarts(
          tx,
          cur.id,
          await attachedDeployments(tx, cur.productId, cur.environmentType),
          "managed_resource_attached",
        );
    } else {
      await move(
        tx,
        cur,
        "provision_failed",
        {
          claimedUntil: null,
          failureCode: "provision_failed",
          failureMessage: `Creating the ${cur.kind === "postgres" ? "database and role" : "bucket"} failed: ${failure}. Delete the resource and create it again; quote ${cur.id} if it persists.`,
        },
        newId("evt"),
      );
    }
  });
  logger.info("managed_resource.provisioned", {
    resource_id: r.id,
    kind: r.kind,
    ok: failure === null,
    error: failure,
  });
}

async function destroy(r: TMres): Promise<void> {
  try {
    // No postgres data goes without a backup kept for the retention period (a failed one retries the destroy);
    // a database that was never created (or is already gone) has nothing to back up.
    if (
      r.kind === "postgres" &&
      r.dbName &&
      r.roleName &&
      (await databaseExists({ role: r.roleName, database: r.dbName })).database &&
      !(await backupBeforeDestroy(r.workspaceId, r.id))
    ) {
      throw new Error("the backup taken before destruction failed; the data is kept and the backup retried");
    }
    if (r.kind === "postgres" && r.dbName && r.roleName) {
      await destroyDatabase({ role: r.roleName, database: r.dbName });
      // Every login role it ever had, and its owner (named like the database).
      const creds = await scopedDb(r.workspaceId).managedResourceCredential.findMany({
        where: { resourceId: r.id, status: { notIn: ["revoked"] } },
        select: { roleName: true },
      });
      await dropRoles([...new Set([...creds.map((c) => c.roleName), r.dbName])]);
      await dropFrozenRole(r.dbName);
    }
    if (r.kind === "object_bucket") await destroyBucket(r.workspaceId, r.id);
  } catch (err) {
    const message = scrub(String((err as Error)?.message ?? err));
    await scopedDb(r.workspaceId).managedResource.updateMany({
      where: { id: r.id, status: "deleting" },
      data: {
        failureCode: "destroy_failed",
        failureMessage: `Destroying the resource failed and will be retried: ${message}`,
        claimedUntil: new Date(Date.now() + RETRY_SECONDS * 1000),
        updatedAt: new Date(),
      },
    });
    logger.error("managed_resource.destroy_failed", { resource_id: r.id, error: message });
    return;
  }
  await scopedDb(r.workspaceId).$transaction(async (tx) => {
    const cur = await lockRow(tx, null, r.id);
    if (cur.status !== "deleting") return;
    // The sealed password goes with the data: nothing can reveal it any more.
    await move(
      tx,
      cur,
      "destroyed",
      { deletedAt: new Date(), sealedSecret: null, claimedUntil: null, failureCode: null, failureMessage: null },
      newId("evt"),
    );
    await tx.managedResourceCredential.updateMany({
      where: { resourceId: r.id, status: { notIn: ["revoked", "failed"] } },
      data: { status: "revoked", revokedAt: new Date(), claimedUntil: null, updatedAt: new Date() },
    });
  });
  logger.info("managed_resource.destroyed", { resource_id: r.id, kind: r.kind });
}

/** Sizes and the read-only state over the size limit: ./sizes.worker.ts. */
export { measureManagedResources } from "./sizes.worker";
