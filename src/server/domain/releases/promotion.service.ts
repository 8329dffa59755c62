import type { Release } from "@/generated/prisma/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { iso } from "@/server/platform/time";
import { requestDeployment } from "@/server/domain/deployments/deployments.service";
import type { TDeployment } from "@/server/domain/deployments/deployments.contract";
import { isWidening } from "@/server/domain/source/contract-validation";
import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import type { TRelease } from "./releases.contract";
import { moveRelease, toRelease } from "./release-moves";
import { getOwnedRelease, liveBaseline } from "./releases.service";
import { isQualified } from "./versions.service";

/**
 * The production path of a release (docs/decisions.md "The production
 * path"): promotion of a release live on staging, and rollback to the
 * production release that was live before. Both request an ordinary
 * production deployment whose `source` is the release, in the transaction
 * that moves the release to `ready`; the release-window worker makes it
 * `live` once that deployment is active and retires the production release
 * it replaces. A deployment refused at once (isolation) refuses the call:
 * nothing is written.
 */
type TCaller = { userId: string; correlationId: string };
type TResult = { release: TRelease; deployment: TDeployment };

const conflict = (reason: string, message: string) => new AppError("conflict", message, { reason });

/** A production release already on its way (ready): one change of production at a time. */
async function refuseWhileChanging(workspaceId: string, productId: string): Promise<void> {
  const pending = await scopedDb(workspaceId).release.findFirst({
    where: { productId, channel: "production", status: "ready" },
    select: { id: true },
  });
  if (pending)
    throw conflict(
      "production_change_in_progress",
      `Release ${pending.id} is on its way to production; wait until it is live (or blocked) first`,
    );
}

async function deployToProduction(
  caller: TCaller,
  r: Release,
  event: "promote" | "reinstate",
  reasonCode: string | null,
  extra: {
    data?: Parameters<typeof moveRelease>[4];
    action: "release.promoted" | "release.rolled_back";
    details: Record<string, unknown>;
  },
): Promise<TResult> {
  let moved: Release | null = null;
  const deployment = await requestDeployment(
    caller,
    r.workspaceId,
    r.revisionId,
    { environment_type: "production" },
    {
      source: { kind: "release", release_id: r.id, version_id: r.versionId },
      inTx: async (tx, dep) => {
        if (dep.status === "blocked") {
          const why = (dep.findings as Array<{ message?: string }>)
            .map((f) => f.message)
            .filter(Boolean)
            .join(" ");
          throw conflict(
            "production_blocked",
            `Production refused the deployment (${dep.reasonCode}): ${why || "see the deployment's findings"}`,
          );
        }
        moved = await moveRelease(
          { tx, actor: { kind: "user", id: caller.userId }, correlationId: caller.correlationId },
          r,
          event,
          reasonCode,
          { ...extra.data, channel: "production", deploymentId: dep.id },
          { action: extra.action, details: { ...extra.details, deployment_id: dep.id } },
        );
      },
    },
  );
  return { release: toRelease(moved!), deployment };
}

/**
 * POST .../releases/{rel}:promote (owner/admin). 409 naming why: not live
 * on staging (`release_not_live_on_staging`), window over (`window_ended`),
 * version no longer qualified (`version_unqualified`), a contract wider than
 * production's live one without `approve_widening: true`
 * (`approval_required`; with it an adjudication is recorded), another
 * production change under way, or production refusing the deployment.
 */
export async function promoteRelease(
  caller: TCaller,
  workspaceId: string,
  id: string,
  body: { approve_widening?: boolean; note?: string },
): Promise<TResult> {
  const r = await getOwnedRelease(workspaceId, id);
  if (r.status !== "live" || r.channel !== "staged") {
    const where = r.channel === "production" ? `${r.status} in production` : r.status;
    throw conflict(
      "release_not_live_on_staging",
      `Release ${id} is ${where}${r.reasonCode ? ` (${r.reasonCode})` : ""}: only a release live on staging can be promoted; deploy it to staging and wait until it is live`,
    );
  }
  if (r.endsAt && r.endsAt <= new Date())
    throw conflict(
      "window_ended",
      `Release ${id}'s window ended at ${iso(r.endsAt)}; create a new release with a later window`,
    );
  if (!(await isQualified(r.revisionId))) {
    throw conflict(
      "version_unqualified",
      `Version ${r.versionId} is no longer qualified (a later evaluation of revision ${r.revisionId} failed); evaluate it again`,
    );
  }
  await refuseWhileChanging(workspaceId, r.productId);
  const baseline = await liveBaseline(workspaceId, r.productId, "production");
  let adjudication: Record<string, unknown> | null = null;
  if (baseline) {
    const rev = await scopedDb(workspaceId).revision.findUniqueOrThrow({
      where: { id: r.revisionId },
      select: { capabilities: true },
    });
    const w = isWidening(baseline.capabilities, (rev.capabilities ?? []) as unknown as TCapabilityEntry[]);
    if (w.widened && !body.approve_widening) {
      throw conflict(
        "approval_required",
        `Release ${id}'s contract asks for more than production's live release ${baseline.release.id} (${w.why}); an owner or admin promotes it with approve_widening: true`,
      );
    }
    if (w.widened)
      adjudication = {
        id: newId("adj"),
        decision: "approve",
        note: body.note ?? null,
        decided_by: caller.userId,
        decided_at: iso(new Date()),
      };
  }
  return deployToProduction(caller, r, "promote", null, {
    data: adjudication ? { adjudication: adjudication as never } : {},
    action: "release.promoted",
    details: {
      product_id: r.productId,
      version_id: r.versionId,
      replaces_release_id: baseline?.release.id ?? null,
      adjudication,
      widening: adjudication ? "approved with approve_widening" : null,
    },
  });
}

/**
 * POST .../products/{prod}/releases:rollback (owner/admin): the production
 * release that was live before the current one is deployed again (its
 * version as it was: no new evaluation) and goes live once its deployment
 * is active, retiring the current one (`rolled_back`). Audit
 * release.rolled_back. 409 `nothing_to_roll_back` when nothing is live in
 * production or no earlier production release can be live again.
 */
export async function rollbackProduct(caller: TCaller, workspaceId: string, productId: string): Promise<TResult> {
  const product = await scopedDb(workspaceId).product.findUnique({ where: { id: productId }, select: { id: true } });
  if (!product) throw notFound(`Product ${productId}`);
  await refuseWhileChanging(workspaceId, productId);
  const current = await scopedDb(workspaceId).release.findFirst({
    where: { productId, channel: "production", status: "live" },
    orderBy: { updatedAt: "desc" },
  });
  if (!current)
    throw conflict(
      "nothing_to_roll_back",
      `No release of product ${productId} is live in production, so there is nothing to roll back`,
    );
  const now = new Date();
  const previous = await scopedDb(workspaceId).release.findFirst({
    where: {
      productId,
      channel: "production",
      status: "retired",
      id: { not: current.id },
      OR: [{ endsAt: null }, { endsAt: { gt: now } }],
    },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
  });
  if (!previous) {
    throw conflict(
      "nothing_to_roll_back",
      `Release ${current.id} is the only production release of product ${productId} whose window is still open; there is no earlier one to roll back to`,
    );
  }
  return deployToProduction(caller, previous, "reinstate", "rollback", {
    action: "release.rolled_back",
    details: {
      product_id: productId,
      from_release_id: current.id,
      from_version_id: current.versionId,
      to_release_id: previous.id,
      to_version_id: previous.versionId,
    },
  });
}
