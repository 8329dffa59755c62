import type { Release } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { requestDeployment } from "@/server/domain/deployments/deployments.service";
import { isWidening } from "@/server/domain/source/contract-validation";
import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import type { TRelease, TReleaseCreateRequest } from "./releases.contract";
import { emitRelease, moveRelease, toRelease } from "./release-moves";
import { RELEASE, type TReleaseStatus } from "./releases.states";
import { getOwnedVersion, isQualified } from "./versions.service";

type TCaller = { userId: string; correlationId: string };

const invalid = (path: string, message: string, reason = "validation_failed") =>
  new AppError("validation_failed", message, { reason, errors: [{ path, message }] });

/**
 * The capabilities of the product's live release's revision, when one is
 * live: the production one first (the contract users have), else staging's;
 * with `channel`, only a release live on that channel.
 */
export async function liveBaseline(
  workspaceId: string,
  productId: string,
  channel?: "production",
): Promise<{ release: Release; capabilities: TCapabilityEntry[] } | null> {
  const live = await scopedDb(workspaceId).release.findFirst({
    where: { productId, status: "live", ...(channel ? { channel } : {}) },
    orderBy: [{ channel: "asc" }, { updatedAt: "desc" }],
  });
  if (!live) return null;
  const rev = await scopedDb(workspaceId).revision.findUniqueOrThrow({
    where: { id: live.revisionId },
    select: { capabilities: true },
  });
  return { release: live, capabilities: (rev.capabilities ?? []) as unknown as TCapabilityEntry[] };
}

/**
 * POST /v1/workspaces/{ws}/releases (spec 2.8). The version must be this
 * workspace's, of `product_id`, and qualified (422 naming the field,
 * nothing written). A window already over is created `blocked`; a version
 * whose contract asks for more than the live release's waits in
 * `pending_approval`; anything else is a `draft`. Audit release.created.
 */
export async function createRelease(
  caller: TCaller,
  workspaceId: string,
  body: TReleaseCreateRequest,
): Promise<TRelease> {
  const product = await scopedDb(workspaceId).product.findUnique({ where: { id: body.product_id } });
  if (!product) throw invalid("/product_id", `No product ${body.product_id} in this workspace`, "product_not_found");
  const version = await getOwnedVersion(workspaceId, body.version_id);
  if (!version) throw invalid("/version_id", `No version ${body.version_id} in this workspace`, "version_not_found");
  if (version.productId !== product.id)
    throw invalid(
      "/version_id",
      `Version ${version.id} is a version of product ${version.productId}, not ${product.id}`,
      "version_product_mismatch",
    );
  if (!(await isQualified(version.revisionId))) {
    throw invalid(
      "/version_id",
      `Version ${version.id} is not qualified: the latest evaluation of revision ${version.revisionId} failed; evaluate it again`,
      "version_unqualified",
    );
  }
  const startsAt = new Date(body.window.starts_at);
  const endsAt = body.window.ends_at ? new Date(body.window.ends_at) : null;
  const now = new Date();

  let event: "create" | "hold" | "block" = "create";
  let reasonCode: string | null = null;
  let widening: { why: string; baseline_release_id: string } | null = null;
  if (endsAt && endsAt <= now) {
    event = "block";
    reasonCode = "window_ended";
  } else {
    const baseline = await liveBaseline(workspaceId, product.id);
    const rev = await scopedDb(workspaceId).revision.findUniqueOrThrow({
      where: { id: version.revisionId },
      select: { capabilities: true },
    });
    const w = baseline
      ? isWidening(baseline.capabilities, (rev.capabilities ?? []) as unknown as TCapabilityEntry[])
      : { widened: false };
    if (baseline && w.widened) {
      event = "hold";
      reasonCode = "scope_widened";
      widening = { why: w.why!, baseline_release_id: baseline.release.id };
    }
  }
  const status = RELEASE.next(null, event);
  const actor = { kind: "user" as const, id: caller.userId };
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    const r = await tx.release.create({
      data: {
        id: newId("rel"),
        workspaceId,
        productId: product.id,
        versionId: version.id,
        revisionId: version.revisionId,
        channel: body.channel,
        audience: body.audience,
        startsAt,
        endsAt,
        status,
        reasonCode,
        widening: widening ?? undefined,
        history: [{ status, at: iso(now), reason_code: reasonCode }],
        correlationId: caller.correlationId,
        createdBy: caller.userId,
      },
    });
    await writeAudit(tx, {
      workspaceId,
      actor,
      action: "release.created",
      target: { kind: "release", id: r.id },
      correlationId: caller.correlationId,
      details: {
        product_id: r.productId,
        version_id: r.versionId,
        channel: r.channel,
        audience: body.audience,
        window: body.window,
        status,
        reason_code: reasonCode,
        widening,
      },
    });
    await emitRelease({ tx, actor, correlationId: caller.correlationId }, r, null, event);
    return r;
  });
  return toRelease(row);
}

export async function getOwnedRelease(workspaceId: string, id: string): Promise<Release> {
  const r = await scopedDb(workspaceId).release.findUnique({ where: { id } });
  if (!r) throw notFound(`Release ${id}`);
  return r;
}

export async function getRelease(workspaceId: string, id: string): Promise<TRelease> {
  return toRelease(await getOwnedRelease(workspaceId, id));
}

export async function listReleases(
  workspaceId: string,
  q: TListQuery & { product_id?: string; version_id?: string; status?: TReleaseStatus },
): Promise<TPage<TRelease>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).release.findMany({
    ...args,
    where: {
      ...args.where,
      ...(q.product_id ? { productId: q.product_id } : {}),
      ...(q.version_id ? { versionId: q.version_id } : {}),
      ...(q.status ? { status: q.status } : {}),
    },
  });
  return toPage(rows, q, toRelease);
}

/**
 * :approve / :reject of a release waiting in pending_approval (owner/admin):
 * an adjudication (adj_) recorded on the release, audit adjudication.decided.
 * Approve -> draft; reject -> blocked (`approval_rejected`). Anything else 409.
 */
export async function adjudicateRelease(
  caller: TCaller,
  workspaceId: string,
  id: string,
  decision: "approve" | "reject",
  note: string | null,
): Promise<TRelease> {
  const r = await getOwnedRelease(workspaceId, id);
  if (r.status !== "pending_approval") {
    throw new AppError(
      "conflict",
      `Release ${id} is ${r.status}: only a release pending approval can be approved or rejected`,
      { reason: "release_not_pending" },
    );
  }
  const adjudication = { id: newId("adj"), decision, note, decided_by: caller.userId, decided_at: iso(new Date()) };
  const row = await scopedDb(workspaceId).$transaction((tx) =>
    moveRelease(
      { tx, actor: { kind: "user", id: caller.userId }, correlationId: caller.correlationId },
      r,
      decision,
      decision === "approve" ? null : "approval_rejected",
      { adjudication: adjudication as never },
      {
        action: "adjudication.decided",
        details: {
          adjudication_id: adjudication.id,
          decision,
          note,
          subject: "release_widening",
          widening: r.widening,
        },
      },
    ),
  );
  return toRelease(row);
}

/**
 * POST .../releases/{rel}/deployments: a staging deployment of the
 * version's revision with source {kind: release}, created in the same
 * transaction that freezes the release (draft -> ready, frozen_at).
 */
export async function deployRelease(
  caller: TCaller,
  workspaceId: string,
  id: string,
): Promise<{ release: TRelease; deployment: Awaited<ReturnType<typeof requestDeployment>> }> {
  const r = await getOwnedRelease(workspaceId, id);
  if (r.status === "pending_approval") {
    throw new AppError(
      "conflict",
      `Release ${id} waits for an owner or admin to approve its wider contract (${(r.widening as { why?: string } | null)?.why ?? "scope_widened"})`,
      { reason: "approval_required" },
    );
  }
  if (r.status !== "draft") {
    throw new AppError(
      "conflict",
      `Release ${id} is ${r.status}${r.reasonCode ? ` (${r.reasonCode})` : ""}: only a draft release can be deployed`,
      { reason: "release_not_deployable" },
    );
  }
  if (!(await isQualified(r.revisionId))) {
    throw new AppError(
      "conflict",
      `Version ${r.versionId} is no longer qualified (a later evaluation of its revision failed)`,
      { reason: "version_unqualified" },
    );
  }
  let frozen: Release | null = null;
  const deployment = await requestDeployment(
    caller,
    workspaceId,
    r.revisionId,
    { environment_type: "staging" },
    {
      source: { kind: "release", release_id: r.id, version_id: r.versionId },
      inTx: async (tx, dep) => {
        frozen = await moveRelease(
          { tx, actor: { kind: "user", id: caller.userId }, correlationId: caller.correlationId },
          r,
          "freeze",
          null,
          { frozenAt: new Date(), deploymentId: dep.id },
        );
      },
    },
  );
  return { release: toRelease(frozen!), deployment };
}
