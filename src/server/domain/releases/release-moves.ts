import type { Prisma, Release } from "@/generated/prisma/client";
import { writeAudit, type TActor, type TAuditAction } from "@/server/platform/audit";
import { AppError } from "@/server/platform/errors";
import { emitEvent } from "@/server/platform/outbox";
import { iso } from "@/server/platform/time";
import type { TRelease } from "./releases.contract";
import { RELEASE, type TReleaseEvent, type TReleaseStatus } from "./releases.states";

/**
 * The only writer of a release's status: the edge from releases.states.ts,
 * compare-and-set on the status read, the history entry, and the
 * `release.changed` event in the caller's transaction.
 */
export type TReleaseCtx = { tx: Prisma.TransactionClient; actor: TActor; correlationId: string };

type THistory = TRelease["history"];

export function toRelease(r: Release): TRelease {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    product_id: r.productId,
    version_id: r.versionId,
    channel: r.channel as TRelease["channel"],
    audience: r.audience as TRelease["audience"],
    window: { starts_at: iso(r.startsAt), ends_at: r.endsAt ? iso(r.endsAt) : null },
    status: r.status as TReleaseStatus,
    frozen_at: r.frozenAt ? iso(r.frozenAt) : null,
    reason_code: r.reasonCode,
    revision_id: r.revisionId,
    deployment_id: r.deploymentId,
    widening: (r.widening ?? null) as TRelease["widening"],
    adjudication: (r.adjudication ?? null) as TRelease["adjudication"],
    history: r.history as THistory,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  };
}

export async function emitRelease(
  ctx: TReleaseCtx,
  r: Release,
  from: string | null,
  event: TReleaseEvent,
): Promise<void> {
  await emitEvent(ctx.tx, {
    workspaceId: r.workspaceId,
    type: "release.changed",
    correlationId: ctx.correlationId,
    subject: r.id,
    data: {
      release_id: r.id,
      product_id: r.productId,
      version_id: r.versionId,
      from,
      to: r.status,
      event,
      reason_code: r.reasonCode,
      deployment_id: r.deploymentId,
    },
  });
}

export async function moveRelease(
  ctx: TReleaseCtx,
  r: Release,
  event: TReleaseEvent,
  reasonCode: string | null,
  data: Prisma.ReleaseUncheckedUpdateManyInput = {},
  audit?: { action: TAuditAction; details: Record<string, unknown> },
): Promise<Release> {
  const from = r.status as TReleaseStatus;
  const to = RELEASE.next(from, event);
  const now = new Date();
  const history = [...(r.history as THistory), { status: to, at: iso(now), reason_code: reasonCode }];
  const moved = await ctx.tx.release.updateMany({
    where: { id: r.id, status: from },
    data: { ...data, status: to, reasonCode, history: history as never, updatedAt: now },
  });
  if (moved.count !== 1)
    throw new AppError("conflict", `The release ${r.id} changed concurrently; read it again`, {
      reason: "concurrent_change",
    });
  const row = await ctx.tx.release.findUniqueOrThrow({ where: { id: r.id } });
  if (audit) {
    await writeAudit(ctx.tx, {
      workspaceId: row.workspaceId,
      actor: ctx.actor,
      action: audit.action,
      target: { kind: "release", id: row.id },
      correlationId: ctx.correlationId,
      details: { ...audit.details, from, to, release_id: row.id, version_id: row.versionId },
    });
  }
  await emitRelease(ctx, row, from, event);
  return row;
}
