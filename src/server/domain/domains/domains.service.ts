import { randomBytes } from "node:crypto";
import type { Domain } from "@/generated/prisma/client";
import { db, type TDb, type TTx } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import type { TPlanName } from "@/server/domain/usage/usage.contract";
import { routingRecords, verificationRecord } from "./dns-check";
import { forgetHost } from "./domain-routes";
import { normalizeHostname } from "./hostname";
import type { DOMAIN_FAILURE_CODES, TDomain, TDomainState } from "./domains.contract";

/**
 * Custom domains (spec 4.2; docs/decisions.md "Custom domains"): create with
 * hostname rules and a race-free platform-wide uniqueness, the plan's domain
 * count, verification requests within their budgets (429 + Retry-After).
 * The checks themselves run in the worker (verification.service.ts).
 */

/** Domains a workspace may hold, per plan (docs/hosted-apps.md "Custom domains"). */
export const DOMAIN_LIMITS: Record<TPlanName, number> = { free: 3, team: 25, enterprise: 250 };

type TCaller = { userId: string; correlationId: string };

export function toDomain(d: Domain): TDomain {
  return {
    id: d.id,
    workspace_id: d.workspaceId,
    product_id: d.productId,
    environment_type: d.environmentType as TDomain["environment_type"],
    hostname: d.hostname,
    apex: d.apex,
    status: d.status as TDomainState,
    verification_record: verificationRecord(d.hostname, d.verificationToken),
    routing_records: routingRecords(d.hostname, d.apex),
    check_pending: d.checkRequestedAt !== null,
    failure: d.failureCode
      ? { code: d.failureCode as (typeof DOMAIN_FAILURE_CODES)[number], message: d.failureMessage ?? "" }
      : null,
    last_checked_at: d.lastCheckedAt ? iso(d.lastCheckedAt) : null,
    verified_at: d.verifiedAt ? iso(d.verifiedAt) : null,
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  };
}

export function domainEventData(d: Domain, from: string | null): Record<string, unknown> {
  return {
    domain_id: d.id,
    hostname: d.hostname,
    product_id: d.productId,
    environment_type: d.environmentType,
    from,
    to: d.status,
    failure: d.failureCode ? { code: d.failureCode, message: d.failureMessage } : null,
  };
}

const invalid = (path: string, message: string) =>
  new AppError("validation_failed", `${path.slice(1)} ${message}`, { errors: [{ path, message }] });

export async function listDomains(
  workspaceId: string,
  q: Parameters<typeof keysetArgs>[0] & { product_id?: string },
): Promise<TPage<TDomain>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).domain.findMany({
    ...args,
    where: { ...args.where, ...(q.product_id ? { productId: q.product_id } : {}) },
  });
  return toPage(rows, q, toDomain);
}

/** A domain of the workspace whose (scoped) client `tx` is. */
async function load(tx: TDb | TTx, id: string): Promise<Domain> {
  const d = await tx.domain.findUnique({ where: { id } });
  if (!d) throw notFound(`Domain ${id}`);
  return d;
}

export async function getDomain(workspaceId: string, id: string): Promise<TDomain> {
  return toDomain(await load(scopedDb(workspaceId), id));
}

export async function createDomain(
  caller: TCaller,
  workspaceId: string,
  input: { product_id: string; environment_type: "staging" | "production"; hostname: string },
): Promise<TDomain> {
  const e = env();
  const host = normalizeHostname(input.hostname, {
    surfaceDomain: e.CAPSTAN_SURFACE_DOMAIN,
    reservedHosts: [new URL(e.CAPSTAN_PUBLIC_URL).hostname],
  });
  if (!host.ok) throw invalid("/hostname", host.message);
  const product = await scopedDb(workspaceId).product.findUnique({
    where: { id: input.product_id },
    select: { id: true },
  });
  if (!product) throw invalid("/product_id", `is not a product of workspace ${workspaceId}`);
  try {
    return await scopedDb(workspaceId)
      .$transaction(async (tx) => {
        // One writer per workspace at a time: the count below cannot be raced past the plan's limit.
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"domains:" + workspaceId}, 0))`;
        const plan = ((await tx.plan.findFirst({ select: { plan: true } }))?.plan ?? "free") as TPlanName;
        const limit = DOMAIN_LIMITS[plan] ?? DOMAIN_LIMITS.free;
        // Several workspaces may claim a name while nobody has proven it; a verified claim of another
        // workspace, or a live claim of this one, holds it (serialised per hostname across workspaces).
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"domain-host:" + host.hostname}, 0))`;
        // Raw SQL on purpose: across workspaces (another's verified claim holds the name), in this transaction.
        const [holder] = await tx.$queryRaw<Array<{ workspaceId: string }>>`
        SELECT "workspace_id" AS "workspaceId" FROM "domains"
         WHERE "hostname" = ${host.hostname} AND ("status" = 'verified' OR ("workspace_id" = ${workspaceId} AND "status" <> 'released'))
         LIMIT 1`;
        if (holder) {
          throw new AppError(
            "conflict",
            holder.workspaceId === workspaceId
              ? `${host.hostname} is already added to this workspace.`
              : `${host.hostname} is verified by another workspace; it can be claimed again only once that claim is deleted or fails its DNS check.`,
            {
              reason: "domain_hostname_taken",
              errors: [{ path: "/hostname", message: "is already taken" }],
            },
          );
        }
        const held = await tx.domain.count({ where: { status: { not: "released" } } });
        if (held >= limit) {
          throw new AppError(
            "validation_failed",
            `The ${plan} plan allows ${limit} custom domains and this workspace has ${held}; delete one or change the plan.`,
            {
              reason: "domain_limit_exceeded",
              extensions: { limit, plan },
            },
          );
        }
        const now = new Date();
        const row = await tx.domain.create({
          data: {
            id: newId("dom"),
            workspaceId,
            productId: input.product_id,
            environmentType: input.environment_type,
            hostname: host.hostname,
            apex: host.apex,
            verificationToken: randomBytes(16).toString("hex"),
            // The first check runs at once (not counted against the verify budget).
            checkRequestedAt: now,
            createdBy: caller.userId,
            createdAt: now,
            updatedAt: now,
          },
        });
        await emitEvent(tx, {
          workspaceId,
          type: "domain.changed",
          correlationId: caller.correlationId,
          subject: row.id,
          data: domainEventData(row, null),
        });
        return row;
      })
      .then((row) => {
        // The name may be cached as unknown: it now answers "not verified yet".
        forgetHost(row.hostname);
        return toDomain(row);
      });
  } catch (err) {
    if ((err as { code?: string }).code === "P2002") {
      throw new AppError("conflict", `${host.hostname} is already added to Capstan, by this or another workspace.`, {
        reason: "domain_hostname_taken",
        errors: [{ path: "/hostname", message: "is already taken" }],
      });
    }
    throw err;
  }
}

export async function deleteDomain(caller: TCaller, workspaceId: string, id: string): Promise<void> {
  const gone = await scopedDb(workspaceId).$transaction(async (tx) => {
    const d = await load(tx, id);
    const deleted = await tx.domain.deleteMany({ where: { id } });
    if (deleted.count === 0) throw notFound(`Domain ${id}`);
    await emitEvent(tx, {
      workspaceId,
      type: "domain.changed",
      correlationId: caller.correlationId,
      subject: id,
      data: { ...domainEventData(d, d.status), to: "deleted" },
    });
    return d;
  });
  forgetHost(gone.hostname);
}

function tooSoon(message: string, retryAfterMs: number, reason: string): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError("rate_limited", `${message} Try again in ${seconds} s.`, {
    reason,
    headers: { "retry-after": String(seconds) },
  });
}

/**
 * POST .../verify: queues a check (202). Budgets, counted over the last hour
 * in the database so they hold across replicas: one request per hostname per
 * CAPSTAN_DOMAIN_VERIFY_INTERVAL_SECONDS, CAPSTAN_DOMAIN_VERIFY_PER_HOSTNAME_HOUR
 * per hostname, CAPSTAN_DOMAIN_VERIFY_PER_WORKSPACE_HOUR per workspace.
 */
export async function requestVerification(caller: TCaller, workspaceId: string, id: string): Promise<TDomain> {
  const e = env();
  return scopedDb(workspaceId).$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"domain-verify:" + workspaceId}, 0))`;
    const d = await load(tx, id);
    if (d.status === "released") {
      throw new AppError(
        "conflict",
        `${d.hostname} was verified by another workspace first, so this claim was released; delete it.`,
        { reason: "domain_released" },
      );
    }
    const now = Date.now();
    const since = new Date(now - 3_600_000);
    // Deliberately across workspaces (raw SQL is not scoped): a hostname's budget survives moving it to another workspace.
    const forHost = await tx.$queryRaw<Array<{ requestedAt: Date }>>`
      SELECT requested_at AS "requestedAt" FROM domain_verify_requests WHERE hostname = ${d.hostname} AND requested_at > ${since} ORDER BY requested_at ASC`;
    const last = forHost[forHost.length - 1];
    const interval = e.CAPSTAN_DOMAIN_VERIFY_INTERVAL_SECONDS * 1000;
    if (last && now - last.requestedAt.getTime() < interval) {
      throw tooSoon(
        `${d.hostname} was sent for verification less than ${e.CAPSTAN_DOMAIN_VERIFY_INTERVAL_SECONDS} s ago.`,
        last.requestedAt.getTime() + interval - now,
        "domain_verify_too_soon",
      );
    }
    if (forHost.length >= e.CAPSTAN_DOMAIN_VERIFY_PER_HOSTNAME_HOUR) {
      throw tooSoon(
        `${d.hostname} was sent for verification ${forHost.length} times in the last hour (the limit).`,
        forHost[0]!.requestedAt.getTime() + 3_600_000 - now,
        "domain_verify_budget_exhausted",
      );
    }
    const forWorkspace = await tx.domainVerifyRequest.findMany({
      where: { requestedAt: { gt: since } },
      orderBy: { requestedAt: "asc" },
      take: e.CAPSTAN_DOMAIN_VERIFY_PER_WORKSPACE_HOUR,
      select: { requestedAt: true },
    });
    if (forWorkspace.length >= e.CAPSTAN_DOMAIN_VERIFY_PER_WORKSPACE_HOUR) {
      throw tooSoon(
        `This workspace sent ${forWorkspace.length} verifications in the last hour (the limit).`,
        forWorkspace[0]!.requestedAt.getTime() + 3_600_000 - now,
        "domain_verify_budget_exhausted",
      );
    }
    await tx.domainVerifyRequest.create({ data: { workspaceId, hostname: d.hostname, requestedAt: new Date(now) } });
    const row = await tx.domain.update({
      where: { id },
      data: { checkRequestedAt: d.checkRequestedAt ?? new Date(now), updatedAt: new Date(now) },
    });
    return toDomain(row);
  });
}

/** Verify requests older than the budgets' hour are no longer needed. */
export async function pruneVerifyRequests(): Promise<number> {
  // platform-scoped: prunes every workspace's expired verify budgets.
  const r = await db().domainVerifyRequest.deleteMany({
    where: { requestedAt: { lt: new Date(Date.now() - 3_600_000) } },
  });
  return r.count;
}
