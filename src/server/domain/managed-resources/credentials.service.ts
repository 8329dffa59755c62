import { randomBytes } from "node:crypto";
import type { ManagedResourceCredential } from "@/generated/prisma/client";
import { seal } from "@/server/platform/crypto";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { logger } from "@/server/platform/logger";
import { iso } from "@/server/platform/time";
import {
  DEFAULT_OVERLAP_SECONDS,
  MAX_OVERLAP_SECONDS,
  type TCredentialsRotated,
  type TReadOnlyCredentialCreated,
} from "./credentials.contract";
import { credentialEvent, retireCredential, scrubServerError } from "./credentials.worker";
import { queueRestarts, usingDeployments } from "./credentials-restarts";
import type { TManagedResource } from "./managed-resources.contract";
import { change, connectionUrl, lockRow, toCredential, type TMres } from "./managed-resources.model";
import { scramVerifier } from "./postgres-admin";
import { createPrimaryRole, createReadOnlyRole } from "./postgres-credentials";
import {
  type TCaller,
  conflict,
  render,
  lockForChange,
  available,
  planLimit,
  failPending,
  insertPending,
  activate,
  audit,
} from "./credential-steps";

/**
 * Credentials of a postgres resource (issue #33 item 5; docs/decisions.md
 * "Credentials: rotation with an overlap, read-only roles"). A change is written first as a `pending`
 * credential (one per resource at a time, by a unique index), then the role
 * is made on the server, then the credential is activated: the password is
 * shown only once the role works, and a request that dies midway leaves a
 * pending row the worker fails and cleans up. Nothing secret is stored but
 * the current primary password (sealed on the resource, for deployments).
 */
/**
 * Rotates the primary password: a new login role for the same database gets
 * a new password (shown once); the old role keeps working for
 * `previous_secret_expires_in` seconds (default 24 h, at most 7 days), then
 * the worker ends its sessions and drops it. 409 on a detached, deleted or
 * not yet available resource, and while a previous rotation's overlap runs.
 */
export async function rotateCredentials(
  caller: TCaller,
  workspaceId: string,
  id: string,
  input: { previous_secret_expires_in?: number },
): Promise<TCredentialsRotated> {
  const keepFor = input.previous_secret_expires_in ?? DEFAULT_OVERLAP_SECONDS;
  if (!Number.isInteger(keepFor) || keepFor < 0 || keepFor > MAX_OVERLAP_SECONDS) {
    const message = `must be an integer from 0 to ${MAX_OVERLAP_SECONDS} seconds`;
    throw new AppError("validation_failed", `previous_secret_expires_in ${message}`, {
      errors: [{ path: "/previous_secret_expires_in", message }],
    });
  }
  const { r, pending } = await scopedDb(workspaceId).$transaction(async (tx) => {
    const r = await lockForChange(tx, workspaceId, id, "rotating its password");
    if (!r.productId) {
      throw conflict(
        `Managed resource ${r.name} is not attached; rotation rolls the password of the app using it, so attach it first (a detached database's password reaches no app; nothing was changed).`,
        "not_attached",
      );
    }
    available(r, "rotating its password");
    const retiring = await tx.managedResourceCredential.findFirst({ where: { resourceId: id, status: "retiring" } });
    if (retiring) {
      throw conflict(
        `The previous login role ${retiring.roleName} of ${r.name} is accepted until ${iso(retiring.expiresAt!)}; end it (:revoke-previous-credentials) or wait before rotating again (nothing was changed).`,
        "credential_rotation_in_progress",
        { previous_username: retiring.roleName, previous_expires_at: iso(retiring.expiresAt!) },
      );
    }
    return { r, pending: await insertPending(tx, r, caller, "primary") };
  });
  const made = await makeRole(createPrimaryRole, r, pending, workspaceId);
  if ("failed" in made) return failPending(r, pending, made.failed, caller.correlationId);
  const { password } = made;
  const result = await scopedDb(workspaceId).$transaction(async (tx) => {
    const cur = await lockRow(tx, workspaceId, id);
    // The worker fails a pending credential under the same row lock: if it gave up on this one, change nothing.
    if (
      (await tx.managedResourceCredential.findUnique({ where: { id: pending.id }, select: { status: true } }))
        ?.status !== "pending"
    )
      return null;
    const previous = await tx.managedResourceCredential.findFirst({
      where: { resourceId: id, kind: "primary", status: "active" },
    });
    const now = new Date();
    let retired: ManagedResourceCredential | null = null;
    if (previous) {
      retired = await tx.managedResourceCredential.update({
        where: { id: previous.id },
        data: { status: "retiring", expiresAt: new Date(now.getTime() + keepFor * 1000), updatedAt: now },
      });
      await credentialEvent(tx, retired, "active", "replaced", caller.correlationId);
    }
    const active = await activate(tx, pending, caller.correlationId);
    if (!active) throw new Error("a pending credential changed under the resource's row lock");
    await change(
      tx,
      cur,
      "credentials_rotated",
      { roleName: active.roleName, sealedSecret: seal(JSON.stringify({ password }), id) },
      caller.correlationId,
    );
    await audit(tx, caller, cur, "credential.created", active, {
      step: "rotated",
      previous_username: retired?.roleName ?? null,
      previous_secret_expires_in: keepFor,
      previous_expires_at: retired?.expiresAt ? iso(retired.expiresAt) : null,
    });
    // The app's running deployments hold the old role: each is replaced, one at a time, within the overlap.
    const running = await queueRestarts(
      tx,
      id,
      cur.productId ? await usingDeployments(tx, id, cur.productId) : [],
      "credentials_changed",
    );
    return { active, running };
  });
  if (!result)
    return failPending(
      r,
      pending,
      new Error("the request took too long and the change was abandoned"),
      caller.correlationId,
    );
  if (keepFor === 0) await retireNow(r, caller.correlationId);
  return {
    ...(await render(workspaceId, id)),
    login_role: toCredential(result.active),
    secret: { password, url: connectionUrl(result.active.roleName, password, r.dbName!) },
    running_deployments: result.running,
  };
}

/** A new login role with a fresh password (its SCRAM verifier computed here), or why PostgreSQL refused it. */
async function makeRole(
  create: typeof createPrimaryRole,
  r: { dbName: string | null },
  pending: { roleName: string },
  workspaceId: string,
): Promise<{ password: string } | { failed: unknown }> {
  const password = randomBytes(32).toString("base64url");
  try {
    await create({
      owner: r.dbName!,
      role: pending.roleName,
      database: r.dbName!,
      verifier: scramVerifier(password),
      connectionLimit: await planLimit(workspaceId),
    });
    return { password };
  } catch (err) {
    return { failed: err };
  }
}

/** Drops what is due now instead of at the next worker pass; a failure is left to the worker. */
async function retireNow(r: TMres, correlationId: string): Promise<void> {
  const due = await scopedDb(r.workspaceId).managedResourceCredential.findMany({
    where: { resourceId: r.id, OR: [{ status: "revoking" }, { status: "retiring", expiresAt: { lte: new Date() } }] },
  });
  for (const c of due)
    await retireCredential(c.id, correlationId).catch((err) =>
      logger.warn("managed_resource.credential_retire_deferred", { credential_id: c.id, error: scrubServerError(err) }),
    );
}

/** Ends a rotation's overlap now: the previous role is refused at once and dropped. Idempotent. */
export async function revokePreviousCredentials(
  caller: TCaller,
  workspaceId: string,
  id: string,
): Promise<TManagedResource> {
  const r = await scopedDb(workspaceId).$transaction(async (tx) => {
    const r = await lockRow(tx, workspaceId, id);
    const retiring = await tx.managedResourceCredential.findFirst({ where: { resourceId: id, status: "retiring" } });
    if (!retiring) return r;
    const now = new Date();
    const row = await tx.managedResourceCredential.update({
      where: { id: retiring.id },
      data: { status: "revoking", updatedAt: now },
    });
    await credentialEvent(tx, row, "retiring", "revoke_requested", caller.correlationId);
    await audit(tx, caller, r, "credential.revoked", row, {
      step: "previous_revoked",
      was_accepted_until: iso(retiring.expiresAt!),
    });
    return r;
  });
  await retireNow(r, caller.correlationId);
  return render(workspaceId, id);
}

/** The optional read-only credential: SELECT on every table of the database, now and later; its password shown once. */
export async function createReadOnlyCredential(
  caller: TCaller,
  workspaceId: string,
  id: string,
): Promise<TReadOnlyCredentialCreated> {
  const { r, pending } = await scopedDb(workspaceId).$transaction(async (tx) => {
    const r = await lockForChange(tx, workspaceId, id, "creating a read-only credential");
    available(r, "creating a read-only credential");
    const existing = await tx.managedResourceCredential.findFirst({
      where: { resourceId: id, kind: "read_only", status: "active" },
    });
    if (existing) {
      throw conflict(
        `Managed resource ${r.name} already has a read-only credential (${existing.roleName}); revoke it first to make a new one (nothing was changed).`,
        "read_only_credential_exists",
        { username: existing.roleName },
      );
    }
    return { r, pending: await insertPending(tx, r, caller, "read_only") };
  });
  const made = await makeRole(createReadOnlyRole, r, pending, workspaceId);
  if ("failed" in made) return failPending(r, pending, made.failed, caller.correlationId);
  const { password } = made;
  const active = await scopedDb(workspaceId).$transaction(async (tx) => {
    const cur = await lockRow(tx, workspaceId, id);
    const row = await activate(tx, pending, caller.correlationId);
    if (row) await audit(tx, caller, cur, "credential.created", row, { step: "read_only_created" });
    return row;
  });
  if (!active)
    return failPending(
      r,
      pending,
      new Error("the request took too long and the change was abandoned"),
      caller.correlationId,
    );
  return {
    ...(await render(workspaceId, id)),
    login_role: toCredential(active),
    secret: { password, url: connectionUrl(active.roleName, password, r.dbName!) },
  };
}

/** Revokes the read-only credential: refused by the sockets at once, its sessions ended and its role dropped. */
export async function revokeReadOnlyCredential(
  caller: TCaller,
  workspaceId: string,
  id: string,
): Promise<TManagedResource> {
  const r = await scopedDb(workspaceId).$transaction(async (tx) => {
    const r = await lockRow(tx, workspaceId, id);
    const active = await tx.managedResourceCredential.findFirst({
      where: { resourceId: id, kind: "read_only", status: "active" },
    });
    if (!active)
      throw conflict(
        `Managed resource ${r.name} has no read-only credential (nothing was changed).`,
        "no_read_only_credential",
      );
    const row = await tx.managedResourceCredential.update({
      where: { id: active.id },
      data: { status: "revoking", updatedAt: new Date() },
    });
    await credentialEvent(tx, row, "active", "revoke_requested", caller.correlationId);
    await audit(tx, caller, r, "credential.revoked", row, { step: "read_only_revoked" });
    return r;
  });
  await retireNow(r, caller.correlationId);
  return render(workspaceId, id);
}

/**
 * Whether `user` may log in to resource `resourceId` through a deployment's
 * socket now: an active credential, or a retiring one before its expiry (the
 * overlap is exact here, whatever the worker's lag).
 */
export async function credentialAccepted(
  workspaceId: string,
  resourceId: string,
  user: string,
  now = new Date(),
): Promise<boolean> {
  const c = await scopedDb(workspaceId).managedResourceCredential.findFirst({
    where: { resourceId, roleName: user },
    select: { status: true, expiresAt: true },
  });
  return !!c && (c.status === "active" || (c.status === "retiring" && !!c.expiresAt && c.expiresAt > now));
}
