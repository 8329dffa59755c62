import { ENVIRONMENT_TYPES, type TEnvironmentType } from "@/server/domain/deployments/deployments.contract";
import { roleAtLeast, type TRole } from "@/server/domain/identity/workspace-access.service";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { iso, isoOrNull } from "@/server/platform/time";
import type { TOverview } from "./overview.contract";
import { spendThisMonth } from "./usage-series.service";

const WINDOW_MS = 7 * 86_400_000;
const LIVE = ["planned", "applying", "active"] as const;
/** Enough for an overview card; the deployments page lists the rest. */
const LIVE_LIMIT = 100;
const FAILURE_LIMIT = 5;

/**
 * The workspace overview: deployments that are live (or on their way) per
 * environment, this UTC month's spend, and the failures of the last 7 days
 * that need action (failed deployments, denied Bridge calls by reason,
 * undelivered webhooks for admins, domains whose verification failed).
 */
export async function getOverview(workspaceId: string, role: TRole, now = new Date()): Promise<TOverview> {
  const since = new Date(now.getTime() - WINDOW_MS);
  const isAdmin = roleAtLeast(role, "admin");
  const sdb = scopedDb(workspaceId);
  const [live, failed, denied, deadCount, deadLatest, domains, spend] = await Promise.all([
    sdb.deployment.findMany({
      where: { status: { in: [...LIVE] } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: LIVE_LIMIT,
      select: {
        id: true,
        productId: true,
        revisionId: true,
        environmentType: true,
        status: true,
        startedAt: true,
        product: { select: { name: true } },
        surface: { select: { id: true, url: true } },
      },
    }),
    sdb.deployment.findMany({
      where: { status: "failed", updatedAt: { gte: since } },
      orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
      take: FAILURE_LIMIT,
      select: {
        id: true,
        productId: true,
        environmentType: true,
        reasonCode: true,
        updatedAt: true,
        product: { select: { name: true } },
      },
    }),
    // Raw SQL (not filtered by the scoped client): the statement names the workspace itself.
    // Raw SQL on purpose: the statement names the workspace itself.
    db().$queryRaw<{ reason: string | null; count: number; last_at: Date }[]>`
      SELECT reason, count(*)::int AS count, max(created_at) AS last_at
        FROM capability_invocations
       WHERE workspace_id = ${workspaceId} AND outcome = 'denied' AND created_at >= ${since}
       GROUP BY reason ORDER BY count(*) DESC, reason LIMIT 10`,
    isAdmin ? sdb.deadLetter.count({ where: { redeliveredAt: null, createdAt: { gte: since } } }) : Promise.resolve(0),
    isAdmin
      ? sdb.deadLetter.findMany({
          where: { redeliveredAt: null, createdAt: { gte: since } },
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          take: FAILURE_LIMIT,
          select: { id: true, eventType: true, lastStatusCode: true, lastError: true, createdAt: true },
        })
      : Promise.resolve([]),
    // A failed domain needs action however long ago it failed.
    sdb.domain.findMany({
      where: { status: "failed" },
      orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
      take: FAILURE_LIMIT,
      select: { id: true, hostname: true, failureCode: true, failureMessage: true, updatedAt: true },
    }),
    spendThisMonth(workspaceId, now),
  ]);

  const byEnv = new Map<TEnvironmentType, TOverview["environments"][number]["deployments"]>(
    ENVIRONMENT_TYPES.map((t) => [t, []]),
  );
  for (const d of live) {
    byEnv.get(d.environmentType as TEnvironmentType)?.push({
      id: d.id,
      product_id: d.productId,
      product_name: d.product.name,
      revision_id: d.revisionId,
      status: d.status as (typeof LIVE)[number],
      surface_id: d.surface?.id ?? null,
      surface_url: d.surface?.url ?? null,
      started_at: isoOrNull(d.startedAt),
    });
  }
  for (const list of byEnv.values())
    list.sort((a, b) => a.product_name.localeCompare(b.product_name) || a.id.localeCompare(b.id));

  return {
    environments: ENVIRONMENT_TYPES.map((t) => ({ environment_type: t, deployments: byEnv.get(t)! })),
    spend_this_month: spend,
    failures: {
      since: iso(since),
      deployments: failed.map((d) => ({
        id: d.id,
        product_id: d.productId,
        product_name: d.product.name,
        environment_type: d.environmentType as TEnvironmentType,
        reason_code: d.reasonCode,
        at: iso(d.updatedAt),
      })),
      denied: denied.map((x) => ({ reason: x.reason ?? "unspecified", count: x.count, last_at: iso(x.last_at) })),
      dead_letters: isAdmin
        ? {
            count: deadCount,
            latest: deadLatest.map((x) => ({
              id: x.id,
              event_type: x.eventType,
              last_status_code: x.lastStatusCode,
              last_error: x.lastError,
              at: iso(x.createdAt),
            })),
          }
        : null,
      domains: domains.map((x) => ({
        id: x.id,
        hostname: x.hostname,
        failure_code: x.failureCode,
        failure_message: x.failureMessage,
        at: iso(x.updatedAt),
      })),
    },
  };
}
