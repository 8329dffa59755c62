import type { Product, Revision, SourceFreeze } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import type { TProduct, TSourceFreeze } from "./source.contract";

type TCaller = { userId: string; correlationId: string };

export function toProduct(p: Product): TProduct {
  return {
    id: p.id, workspace_id: p.workspaceId, type: "hosted-app", input_revision_id: p.inputRevisionId,
    repo_url: p.repoUrl, ref: p.ref, created_at: iso(p.createdAt), updated_at: iso(p.updatedAt),
  };
}

export function freezeLink(workspaceId: string, freezeId: string): string {
  return `/v1/workspaces/${workspaceId}/source-freezes/${freezeId}`;
}

/**
 * Credentials in a repository URL are never stored or echoed: the userinfo is
 * replaced by `***`, which the freeze then rejects as private_source_unsupported.
 */
export function redactRepoUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (!url.username && !url.password) return raw;
    url.username = "***";
    url.password = "";
    return url.toString();
  } catch {
    return raw;
  }
}

/**
 * Intake (spec 2.3): creates the product, its input revision and a pending
 * source freeze in one transaction and answers at once; the freeze worker
 * fetches and snapshots the source.
 */
export async function createProduct(caller: TCaller, workspaceId: string, raw: { repo_url: string; ref: string }) {
  const input = { ...raw, repo_url: redactRepoUrl(raw.repo_url) };
  const productId = newId("prod");
  const revisionId = newId("rev");
  const freezeId = newId("frz");
  await db().$transaction(async (tx) => {
    await tx.product.create({
      data: { id: productId, workspaceId, inputRevisionId: revisionId, repoUrl: input.repo_url, ref: input.ref, createdBy: caller.userId },
    });
    await tx.revision.create({ data: { id: revisionId, workspaceId, productId, inputRevisionId: revisionId, freezeId } });
    await tx.sourceFreeze.create({
      data: {
        id: freezeId, workspaceId, productId, revisionId, repoUrl: input.repo_url, ref: input.ref,
        correlationId: caller.correlationId, createdBy: caller.userId,
      },
    });
    await writeAudit(tx, {
      workspaceId, actor: { kind: "user", id: caller.userId }, action: "product.created",
      target: { kind: "product", id: productId }, correlationId: caller.correlationId,
      details: { repo_url: input.repo_url, ref: input.ref, source_freeze_id: freezeId },
    });
    await emitEvent(tx, {
      workspaceId, type: "product.created", correlationId: caller.correlationId, subject: productId,
      data: { product_id: productId, workspace_id: workspaceId, input_revision_id: revisionId, source_freeze_id: freezeId },
    });
  });
  return { source_freeze_id: freezeId, status: "pending" as const, product_id: productId, links: { self: freezeLink(workspaceId, freezeId) } };
}

/** A new revision of an existing product from another ref (or the same ref, later). */
export async function refreezeProduct(caller: TCaller, workspaceId: string, productId: string, ref: string) {
  const product = await getOwnedProduct(workspaceId, productId);
  const revisionId = newId("rev");
  const freezeId = newId("frz");
  await db().$transaction(async (tx) => {
    await tx.revision.create({ data: { id: revisionId, workspaceId, productId, inputRevisionId: product.inputRevisionId, freezeId } });
    await tx.sourceFreeze.create({
      data: { id: freezeId, workspaceId, productId, revisionId, repoUrl: product.repoUrl, ref, correlationId: caller.correlationId, createdBy: caller.userId },
    });
  });
  return { source_freeze_id: freezeId, status: "pending" as const, product_id: productId, links: { self: freezeLink(workspaceId, freezeId) } };
}

export async function getOwnedProduct(workspaceId: string, productId: string): Promise<Product> {
  const p = await db().product.findUnique({ where: { id: productId } });
  if (!p || p.workspaceId !== workspaceId) throw notFound(`Product ${productId}`);
  return p;
}

export async function getProduct(workspaceId: string, productId: string): Promise<TProduct> {
  return toProduct(await getOwnedProduct(workspaceId, productId));
}

export async function listProducts(workspaceId: string, q: TListQuery): Promise<TPage<TProduct>> {
  const args = keysetArgs(q);
  const rows = await db().product.findMany({ ...args, where: { ...args.where, workspaceId } });
  return toPage(rows, q, toProduct);
}

export function toSourceFreeze(f: SourceFreeze & { product: Product }, revision: Pick<Revision, "id" | "createdAt">): TSourceFreeze {
  const out: TSourceFreeze = {
    id: f.id,
    status: f.status as TSourceFreeze["status"],
    product: { id: f.product.id, workspace_id: f.product.workspaceId, type: "hosted-app", created_at: iso(f.product.createdAt) },
    revision: { id: revision.id, product_id: f.productId, input_type: "repository", created_at: iso(revision.createdAt) },
    repo_url: f.repoUrl,
    ref: f.ref,
    commit_sha: f.commitSha,
    created_at: iso(f.createdAt),
    updated_at: iso(f.updatedAt),
  };
  if (f.snapshotUri && f.snapshotSha256 && f.snapshotSize !== null) {
    out.snapshot = { uri: f.snapshotUri, sha256: f.snapshotSha256, size_bytes: Number(f.snapshotSize) };
  }
  if (f.status !== "pending") out.replayed = f.replayed;
  if (f.rejection) out.rejection = f.rejection as TSourceFreeze["rejection"];
  if (f.problem) out.problem = f.problem as Record<string, unknown>;
  return out;
}

export async function getSourceFreeze(workspaceId: string, freezeId: string): Promise<TSourceFreeze> {
  const f = await db().sourceFreeze.findUnique({ where: { id: freezeId }, include: { product: true } });
  if (!f || f.workspaceId !== workspaceId) throw notFound(`Source freeze ${freezeId}`);
  const rev = await db().revision.findUniqueOrThrow({ where: { id: f.revisionId }, select: { id: true, createdAt: true } });
  return toSourceFreeze(f, rev);
}
