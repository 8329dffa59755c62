import type { Domain } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { emitEvent } from "@/server/platform/outbox";
import { checkDomain, makeResolver, type TCheck } from "./dns-check";
import { forgetHost } from "./domain-routes";
import { domainEventData } from "./domains.service";

/**
 * The domain worker: runs requested verifications and re-checks verified
 * domains every CAPSTAN_DOMAIN_RECHECK_SECONDS. Safe in several processes:
 * a domain is claimed for CLAIM_SECONDS with FOR UPDATE SKIP LOCKED, DNS is
 * asked outside any transaction, and the result is written against the row
 * as it is then (a domain deleted meanwhile is left alone).
 *
 * Outcomes: a passing check verifies; a definitive failure (record missing or
 * different) fails the domain with the reason in words; a DNS outage
 * (timeout, SERVFAIL) fails a domain that was not verified yet but leaves a
 * verified one verified (a resolver hiccup must not take a site down), with
 * the failure shown until the next check passes.
 */
const CLAIM_SECONDS = 60;

type TClaimed = Pick<Domain, "id" | "hostname" | "apex" | "verificationToken" | "checkRequestedAt">;

export async function processDomainChecks(limit = 20): Promise<number> {
  const recheck = env().CAPSTAN_DOMAIN_RECHECK_SECONDS;
  // platform-scoped: the verification worker claims domains of every workspace.
  const claimed = await db().$queryRaw<
    Array<{ id: string; hostname: string; apex: boolean; verification_token: string; check_requested_at: Date | null }>
  >`
    UPDATE "domains" SET "check_claimed_until" = now() + make_interval(secs => ${CLAIM_SECONDS})
     WHERE "id" IN (
       SELECT "id" FROM "domains"
        WHERE ("check_claimed_until" IS NULL OR "check_claimed_until" < now())
          AND ("check_requested_at" IS NOT NULL
               OR ("status" = 'verified' AND ("last_checked_at" IS NULL OR "last_checked_at" < now() - make_interval(secs => ${recheck}))))
        ORDER BY COALESCE("check_requested_at", "last_checked_at") ASC
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING "id", "hostname", "apex", "verification_token", "check_requested_at"`;
  if (!claimed.length) return 0;
  const resolver = makeResolver();
  await Promise.all(
    claimed.map(async (c) => {
      const d: TClaimed = {
        id: c.id,
        hostname: c.hostname,
        apex: c.apex,
        verificationToken: c.verification_token,
        checkRequestedAt: c.check_requested_at,
      };
      let result: TCheck;
      try {
        result = await checkDomain(resolver, { hostname: d.hostname, apex: d.apex, token: d.verificationToken });
      } catch (err) {
        result = {
          ok: false,
          code: "dns_unavailable",
          transient: true,
          message: `The DNS check of ${d.hostname} failed (${String(err).slice(0, 120)}).`,
        };
      }
      await record(d, result).catch((err) =>
        logger.error("domains.record_failed", { domain_id: d.id, error: String(err) }),
      );
    }),
  );
  return claimed.length;
}

async function record(claimed: TClaimed, result: TCheck): Promise<void> {
  // platform-scoped: a claimed domain, by id (the row names its workspace).
  const changed = await db().$transaction(async (tx) => {
    // Claims of one hostname (several workspaces may claim it unverified) are decided one at a time.
    if (result.ok)
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"domain-host:" + claimed.hostname}, 0))`;
    const [current] = await tx.$queryRaw<
      Array<{ id: string }>
    >`SELECT "id" FROM "domains" WHERE "id" = ${claimed.id} FOR UPDATE`;
    if (!current) return null;
    const d = (await tx.domain.findUnique({ where: { id: claimed.id } }))!;
    // Released meanwhile (another claim proved the name first): nothing to record.
    if (d.status === "released") return null;
    const now = new Date();
    if (result.ok) await releaseOtherClaims(tx, d, now);
    let status = d.status;
    if (result.ok) status = "verified";
    else if (!(result.transient && d.status === "verified")) status = "failed";
    // A request that arrived while this check ran still gets its own check.
    const answered =
      d.checkRequestedAt !== null &&
      claimed.checkRequestedAt !== null &&
      d.checkRequestedAt.getTime() <= claimed.checkRequestedAt.getTime();
    const row = await tx.domain.update({
      where: { id: d.id },
      data: {
        status,
        lastCheckedAt: now,
        checkClaimedUntil: null,
        updatedAt: now,
        ...(answered ? { checkRequestedAt: null } : {}),
        failureCode: result.ok ? null : result.code,
        failureMessage: result.ok ? null : result.message,
        verifiedAt: result.ok
          ? d.status === "verified" && d.verifiedAt
            ? d.verifiedAt
            : now
          : status === "verified"
            ? d.verifiedAt
            : null,
      },
    });
    if (row.status !== d.status) {
      await emitEvent(tx, {
        workspaceId: d.workspaceId,
        type: "domain.changed",
        correlationId: newId("evt"),
        subject: d.id,
        data: domainEventData(row, d.status),
      });
      return row;
    }
    return null;
  });
  if (changed) {
    forgetHost(changed.hostname);
    logger.info("domains.status_changed", {
      domain_id: changed.id,
      status: changed.status,
      failure: changed.failureCode,
    });
  }
}

/**
 * The first claim whose TXT challenge passes gets the hostname: every other
 * claim of it (pending, failed, or a verified one whose records now carry
 * someone else's challenge) is released, with a `domain.changed` event and
 * the reason in words, in the transaction that verifies the winner.
 */
async function releaseOtherClaims(
  tx: Parameters<Parameters<ReturnType<typeof db>["$transaction"]>[0]>[0],
  winner: Domain,
  now: Date,
): Promise<void> {
  const others = await tx.domain.findMany({
    where: { hostname: winner.hostname, id: { not: winner.id }, status: { not: "released" } },
  });
  for (const o of others) {
    const row = await tx.domain.update({
      where: { id: o.id },
      data: {
        status: "released",
        checkRequestedAt: null,
        checkClaimedUntil: null,
        verifiedAt: null,
        updatedAt: now,
        failureCode: "claimed_elsewhere",
        failureMessage: `Another workspace published the TXT record of its own challenge at _capstan-challenge.${o.hostname} and verified ${o.hostname} first, so this claim was released and routes nothing. If the name is yours, replace their TXT value with yours: once their claim fails its re-check, delete this claim and add the domain again.`,
      },
    });
    await emitEvent(tx, {
      workspaceId: o.workspaceId,
      type: "domain.changed",
      correlationId: newId("evt"),
      subject: o.id,
      data: domainEventData(row, o.status),
    });
  }
}
