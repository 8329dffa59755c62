import type { Prisma, Version } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import { getOwnedRevision } from "@/server/domain/source/revisions.service";
import type { TVersion } from "./releases.contract";

/**
 * Versions: immutable, numbered per product, one per revision, cut by a
 * passing evaluation. A version is qualified while the latest finished
 * evaluation of its revision passed.
 */
export function toVersion(v: Version, qualified: boolean): TVersion {
  return {
    id: v.id,
    workspace_id: v.workspaceId,
    product_id: v.productId,
    revision_id: v.revisionId,
    number: v.number,
    label: v.label,
    contract_hash: v.contractHash,
    descriptor_hash: v.descriptorHash,
    qualification_id: v.qualificationId,
    qualified,
    created_at: iso(v.createdAt),
  };
}

/**
 * Whether the latest finished evaluation of each revision passed. Runs of one
 * revision queue behind each other and so finish in creation order: "latest"
 * is the last created among the finished ones, (created_at, id) as the
 * worker's queue orders them, never a clock read by whichever replica
 * finished it.
 */
export async function qualifiedRevisions(revisionIds: string[]): Promise<Set<string>> {
  if (!revisionIds.length) return new Set();
  // platform-scoped: by revision ids the callers read through their workspace's scopedDb (the release-window worker: of every workspace).
  const rows = await db().evaluation.findMany({
    where: { revisionId: { in: revisionIds }, status: { in: ["passed", "failed"] } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    distinct: ["revisionId"],
    select: { revisionId: true, status: true },
  });
  return new Set(rows.filter((r) => r.status === "passed").map((r) => r.revisionId));
}

export async function isQualified(revisionId: string): Promise<boolean> {
  return (await qualifiedRevisions([revisionId])).has(revisionId);
}

/**
 * In the transaction that finishes a passing evaluation: the revision's
 * version, or a new one numbered after the product's last (the product row
 * is locked while the number is taken).
 */
export async function cutVersion(
  tx: Prisma.TransactionClient,
  ev: { workspaceId: string; productId: string; revisionId: string; id: string },
  rev: { contractHash: string; descriptorHash: string },
): Promise<Version> {
  const existing = await tx.version.findUnique({ where: { revisionId: ev.revisionId } });
  if (existing) return existing;
  await tx.$queryRaw`SELECT id FROM products WHERE id = ${ev.productId} FOR UPDATE`;
  const last = await tx.version.aggregate({ where: { productId: ev.productId }, _max: { number: true } });
  const number = (last._max.number ?? 0) + 1;
  return tx.version.create({
    data: {
      id: newId("ver"),
      workspaceId: ev.workspaceId,
      productId: ev.productId,
      revisionId: ev.revisionId,
      number,
      label: `v${number}`,
      contractHash: rev.contractHash,
      descriptorHash: rev.descriptorHash,
      qualificationId: ev.id,
    },
  });
}

export async function getOwnedVersion(workspaceId: string, id: string): Promise<Version | null> {
  return scopedDb(workspaceId).version.findUnique({ where: { id } });
}

export async function getVersion(workspaceId: string, id: string): Promise<TVersion> {
  const v = await getOwnedVersion(workspaceId, id);
  if (!v) throw notFound(`Version ${id}`);
  return toVersion(v, await isQualified(v.revisionId));
}

/** The versions of one revision: 404 when the revision is not the workspace's (as for one that does not exist). */
export async function listRevisionVersions(
  workspaceId: string,
  revisionId: string,
  q: TListQuery,
): Promise<TPage<TVersion>> {
  await getOwnedRevision(workspaceId, revisionId);
  return listVersions(workspaceId, { ...q, revision_id: revisionId });
}

export async function listVersions(
  workspaceId: string,
  q: TListQuery & { revision_id?: string; product_id?: string },
): Promise<TPage<TVersion>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).version.findMany({
    ...args,
    where: {
      ...args.where,
      ...(q.revision_id ? { revisionId: q.revision_id } : {}),
      ...(q.product_id ? { productId: q.product_id } : {}),
    },
  });
  const qualified = await qualifiedRevisions(rows.map((r) => r.revisionId));
  return toPage(rows, q, (v) => toVersion(v, qualified.has(v.revisionId)));
}
