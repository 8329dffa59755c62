import type { Prisma, ProviderBinding } from "@/generated/prisma/client";
import { CAPABILITY_RULES, type TCapabilityId } from "@/server/domain/source/contract-rules";
import { writeAudit, type TActor } from "@/server/platform/audit";
import { bumpVersion } from "@/server/platform/change-signals";
import { db, type TTx } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound, type TFieldError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { assertNameFree, freeName, isNameRace, nameTaken } from "@/server/platform/names";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import {
  bindingRequestErrors,
  type TBindingStatus,
  type TCapabilityScope,
  type TProviderBinding,
  type TProviderBindingListQuery,
  type TProviderBindingRequest,
  type TProviderConfig,
} from "./bindings.contract";
import { checkProviderConfig, scopeCovers } from "./provider-config";

/**
 * Provider bindings: a credential put to work for one capability of a
 * workspace. Lifecycle: requested -> ready | failed; ready -> revoked
 * (DELETE, or its credential revoked) | expired (its credential expired,
 * expireBindings). Every transition is audited (binding.*) and emits
 * `binding.changed`, in the transaction of the change.
 */

type TCaller = { userId: string; correlationId: string };

export function toBinding(b: ProviderBinding, lastUsedAt: Date | null = null): TProviderBinding {
  return {
    id: b.id,
    workspace_id: b.workspaceId,
    name: b.name,
    credential_id: b.credentialId,
    capability: b.capability as TCapabilityId,
    provider: b.provider,
    actions: b.actions as string[],
    scope: b.scope as string[],
    budget: { units: Number(b.budgetUnits), unit: "tokens", used_units: b.usedUnits, reserved_units: b.reservedUnits },
    capability_scope: b.capabilityScope as TCapabilityScope,
    provider_config: Object.keys(b.config as object).length ? (b.config as TProviderConfig) : null,
    status: b.status as TBindingStatus,
    failure_reason: b.failureReason,
    created_by: b.createdBy,
    last_activity_at: lastUsedAt ? iso(lastUsedAt) : null,
    created_at: iso(b.createdAt),
    updated_at: iso(b.updatedAt),
  };
}

/** When the Bridge last called through each binding (one grouped query over the page). */
async function lastUses(workspaceId: string, ids: string[]): Promise<Map<string, Date | null>> {
  if (ids.length === 0) return new Map();
  const rows = await scopedDb(workspaceId).capabilityInvocation.groupBy({
    by: ["bindingId"],
    where: { bindingId: { in: ids } },
    _max: { createdAt: true },
  });
  return new Map(rows.map((r) => [r.bindingId ?? "", r._max.createdAt]));
}

const invalid = (detail: string, errors: TFieldError[], reason?: string) =>
  new AppError("validation_failed", detail, { errors, reason });

function changedEvent(b: ProviderBinding) {
  return {
    workspaceId: b.workspaceId,
    type: "binding.changed" as const,
    subject: b.id,
    data: {
      workspace_id: b.workspaceId,
      binding_id: b.id,
      credential_id: b.credentialId,
      capability: b.capability,
      status: b.status,
      failure_reason: b.failureReason,
    },
  };
}

/**
 * Creates a binding. The credential must be this workspace's (or, for a
 * capability whose credential owner is the platform, a platform credential),
 * not revoked, for the same capability, and cover the actions and scope. An
 * expired credential still creates the binding, as `failed`
 * (credential_expired), so the attempt is visible.
 *
 * Creating a binding makes no provider call: the owner tests a binding on
 * demand (POST .../provider-bindings/{bind}/test, binding-test.service.ts), and
 * the first real call's outcome (provider_rejected / provider_unavailable) is
 * recorded like any Bridge call's (docs/decisions.md "Test buttons").
 */
export async function createBinding(
  caller: TCaller,
  workspaceId: string,
  input: TProviderBindingRequest,
): Promise<TProviderBinding> {
  const explicit = input.name?.trim();
  for (let attempt = 1; ; attempt++) {
    try {
      return await createBindingOnce(caller, workspaceId, input, explicit);
    } catch (err) {
      if (!isNameRace(err)) throw err;
      if (explicit) throw nameTaken("provider_bindings", explicit);
      if (attempt >= 3) throw err;
    }
  }
}

async function createBindingOnce(
  caller: TCaller,
  workspaceId: string,
  input: TProviderBindingRequest,
  explicit: string | undefined,
): Promise<TProviderBinding> {
  const shapeErrors = bindingRequestErrors(input);
  if (shapeErrors.length) throw invalid("The request body does not match the schema", shapeErrors);
  const configErrors = checkProviderConfig(input.provider_config);
  if (configErrors.length) throw invalid("provider_config is not allowed", configErrors);
  const capability = input.capability as TCapabilityId;
  const owner = CAPABILITY_RULES[capability].owner;

  // Platform-scoped by design (db()): the credential may be a platform credential (a row of the platform
  // workspace), read and share-locked in this transaction; the checks below admit only the workspace's own or a
  // shared platform one, and the binding row is written for `workspaceId`.
  const created = await db().$transaction(async (tx) => {
    // FOR SHARE: a concurrent revoke waits for us (and then revokes this binding too), or we see it revoked.
    await tx.$queryRaw`SELECT id FROM credentials WHERE id = ${input.credential_id} FOR SHARE`;
    const cred = await tx.credential.findUnique({ where: { id: input.credential_id } });
    const own = cred?.workspaceId === workspaceId;
    const sharedPlatform = cred?.ownerKind === "platform" && owner === "platform";
    if (!cred || (!own && !sharedPlatform)) {
      throw invalid(
        `Credential ${input.credential_id} was not found`,
        [{ path: "/credential_id", message: "no such credential in this workspace" }],
        "credential_not_found",
      );
    }
    if (owner === "platform" && cred.ownerKind !== "platform") {
      throw invalid(
        `${capability} needs a platform credential (spec 2.7 credential_owner platform)`,
        [{ path: "/credential_id", message: "must be a platform credential" }],
        "credential_owner_mismatch",
      );
    }
    if (cred.revokedAt) {
      throw invalid(
        `Credential ${cred.id} is revoked`,
        [{ path: "/credential_id", message: "is revoked" }],
        "credential_revoked",
      );
    }
    const errors: TFieldError[] = [];
    if (cred.capability !== capability)
      errors.push({ path: "/capability", message: `must equal the credential's capability (${cred.capability})` });
    const credActions = cred.actions as string[];
    input.actions.forEach((a, i) => {
      if (!credActions.includes(a)) errors.push({ path: `/actions/${i}`, message: "is not allowed by the credential" });
    });
    const credScope = cred.scope as string[];
    input.scope.forEach((s, i) => {
      if (!scopeCovers(credScope, s))
        errors.push({ path: `/scope/${i}`, message: "is outside the credential's scope" });
    });
    if (errors.length)
      throw invalid("The binding asks for more than the credential allows", errors, "outside_credential");

    if (explicit) await assertNameFree(tx, "provider_bindings", workspaceId, explicit);
    const name = explicit ?? (await freeName(tx, "provider_bindings", workspaceId, `${cred.provider} ${capability}`));
    const expired = cred.expiresAt.getTime() <= Date.now();
    const id = newId("bind");
    const row = await tx.providerBinding.create({
      data: {
        id,
        workspaceId,
        name,
        credentialId: cred.id,
        capability,
        provider: cred.provider,
        actions: input.actions,
        scope: input.scope,
        capabilityScope: input.capability_scope,
        config: input.provider_config ?? {},
        budgetUnits: BigInt(input.budget.units),
        budgetUnit: input.budget.unit,
        status: expired ? "failed" : "ready",
        failureReason: expired ? "credential_expired" : null,
        createdBy: caller.userId,
      },
    });
    const audit = {
      workspaceId,
      actor: { kind: "user", id: caller.userId } as TActor,
      target: { kind: "binding", id },
      correlationId: caller.correlationId,
    };
    await writeAudit(tx, {
      ...audit,
      action: "binding.requested",
      details: {
        name,
        credential_id: cred.id,
        capability,
        provider: cred.provider,
        actions: input.actions,
        budget_units: input.budget.units,
      },
    });
    await writeAudit(
      tx,
      expired
        ? { ...audit, action: "binding.failed", details: { credential_id: cred.id, reason: "credential_expired" } }
        : { ...audit, action: "binding.ready", details: { credential_id: cred.id } },
    );
    await emitEvent(tx, { ...changedEvent(row), correlationId: caller.correlationId });
    return toBinding(row);
  });
  bumpVersion("bindings"); // the Bridge's binding cache in this process sees it at once
  return created;
}

async function findOwned(workspaceId: string, id: string): Promise<ProviderBinding> {
  const row = await scopedDb(workspaceId).providerBinding.findUnique({ where: { id } });
  if (!row) throw notFound(`Provider binding ${id}`);
  return row;
}

export async function getBinding(workspaceId: string, id: string): Promise<TProviderBinding> {
  return toBinding(await findOwned(workspaceId, id), (await lastUses(workspaceId, [id])).get(id) ?? null);
}

/** PATCH: a new name (409 name_taken when a binding of the workspace not revoked has it, ignoring case). */
export async function renameBinding(
  caller: TCaller,
  workspaceId: string,
  id: string,
  rawName: string,
): Promise<TProviderBinding> {
  const name = rawName.trim();
  await scopedDb(workspaceId)
    .$transaction(async (tx) => {
      const row = await tx.providerBinding.findUnique({ where: { id } });
      if (!row) throw notFound(`Provider binding ${id}`);
      if (row.name === name) return;
      if (row.status !== "revoked") await assertNameFree(tx, "provider_bindings", workspaceId, name, id);
      await tx.providerBinding.update({ where: { id }, data: { name, updatedAt: new Date() } });
      await writeAudit(tx, {
        workspaceId,
        actor: { kind: "user", id: caller.userId },
        action: "binding.renamed",
        target: { kind: "binding", id },
        correlationId: caller.correlationId,
        details: { from: row.name, to: name },
      });
    })
    .catch((err: unknown) => {
      throw isNameRace(err) ? nameTaken("provider_bindings", name) : err;
    });
  return getBinding(workspaceId, id);
}

export async function listBindings(
  workspaceId: string,
  q: TProviderBindingListQuery,
): Promise<TPage<TProviderBinding>> {
  const args = keysetArgs(q);
  const filter: Prisma.ProviderBindingWhereInput = {
    ...(q.capability ? { capability: q.capability } : {}),
    ...(q.status ? { status: q.status } : {}),
    ...(q.credential_id ? { credentialId: q.credential_id } : {}),
  };
  const rows = await scopedDb(workspaceId).providerBinding.findMany({ ...args, where: { AND: [args.where, filter] } });
  const last = await lastUses(
    workspaceId,
    rows.slice(0, q.limit).map((r) => r.id),
  );
  return toPage(rows, q, (r) => toBinding(r, last.get(r.id) ?? null));
}

/** Moves one binding to a terminal status if it is not there yet; audits and emits only when it moved. */
async function transition(
  tx: TTx,
  b: ProviderBinding,
  to: "revoked" | "expired",
  reason: string | null,
  actor: TActor,
  correlationId: string,
  from: TBindingStatus[],
): Promise<boolean> {
  const now = new Date();
  const moved = await tx.providerBinding.updateMany({
    where: { id: b.id, status: { in: from } },
    data: { status: to, failureReason: reason, updatedAt: now, ...(to === "revoked" ? { revokedAt: now } : {}) },
  });
  if (moved.count !== 1) return false;
  await writeAudit(tx, {
    workspaceId: b.workspaceId,
    actor,
    action: to === "revoked" ? "binding.revoked" : "binding.expired",
    target: { kind: "binding", id: b.id },
    correlationId,
    details: { credential_id: b.credentialId, reason },
  });
  await emitEvent(tx, { ...changedEvent({ ...b, status: to, failureReason: reason }), correlationId });
  return true;
}

const NOT_REVOKED: TBindingStatus[] = ["requested", "ready", "failed", "expired"];

/** DELETE: revokes the binding (kept, readable, status revoked). Idempotent. */
export async function revokeBinding(caller: TCaller, workspaceId: string, id: string): Promise<TProviderBinding> {
  const row = await findOwned(workspaceId, id);
  const revoked = await scopedDb(workspaceId).$transaction(async (tx) => {
    await transition(tx, row, "revoked", null, { kind: "user", id: caller.userId }, caller.correlationId, NOT_REVOKED);
    return toBinding(await tx.providerBinding.findUniqueOrThrow({ where: { id } }));
  });
  bumpVersion("bindings");
  return revoked;
}

/**
 * Inside the credential's revoke transaction: every binding using it (any workspace) becomes revoked.
 * Platform-scoped by design: a platform credential's bindings live in every workspace (the caller's tx is db()'s).
 */
export async function revokeBindingsOfCredential(
  tx: TTx,
  actor: TActor,
  correlationId: string,
  credentialId: string,
  reason: string,
): Promise<number> {
  const rows = await tx.providerBinding.findMany({ where: { credentialId, status: { in: NOT_REVOKED } } });
  let n = 0;
  for (const b of rows) if (await transition(tx, b, "revoked", reason, actor, correlationId, NOT_REVOKED)) n++;
  return n;
}

/**
 * Worker sweep: ready (or requested) bindings whose credential has expired
 * become `expired` (audit binding.expired, actor system). Safe in several
 * processes: each row moves at most once.
 */
export async function expireBindings(now = new Date()): Promise<number> {
  // Platform-scoped by design: a sweeper over every workspace's bindings (each moves in its own transaction).
  const correlationId = newId("evt");
  const actor: TActor = { kind: "system", id: null };
  let expired = 0;
  for (;;) {
    // platform-scoped: a sweeper over every workspace's bindings.
    const rows = await db().providerBinding.findMany({
      where: { status: { in: ["ready", "requested"] }, credential: { expiresAt: { lte: now } } },
      orderBy: { id: "asc" },
      take: 100,
    });
    let moved = 0;
    for (const b of rows) {
      // platform-scoped: each binding of the sweep moves in its own transaction.
      if (
        await db().$transaction((tx) =>
          transition(tx, b, "expired", "credential_expired", actor, correlationId, ["ready", "requested"]),
        )
      )
        moved++;
    }
    expired += moved;
    if (moved) bumpVersion("bindings");
    if (rows.length < 100 || moved === 0) break;
  }
  return expired;
}
