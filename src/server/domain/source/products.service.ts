import type { Product, Revision, SourceFreeze } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { assertNameFree, freeName, isNameRace, nameTaken, repoBaseName } from "@/server/platform/names";
import { iso } from "@/server/platform/time";
import type { TProduct, TProductStatus, TSourceFreeze } from "./source.contract";
import { checkIntakeSource } from "./intake-checks";

type TCaller = { userId: string; correlationId: string };
type TActivity = { status: TProductStatus; lastActivityAt: Date };

export function toProduct(p: Product, activity?: TActivity): TProduct {
  return {
    id: p.id,
    workspace_id: p.workspaceId,
    name: p.name,
    type: "hosted-app",
    input_revision_id: p.inputRevisionId,
    repo_url: p.repoUrl,
    ref: p.ref,
    status: activity?.status ?? "building",
    last_activity_at: iso(activity?.lastActivityAt ?? p.updatedAt),
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
  };
}

/**
 * What a product is doing, for lists: `live` while a deployment of it is
 * active, else from its latest source freeze: `building` (pending), `ready`
 * (frozen), `failed` (rejected or failed). Last activity is the latest change
 * of the product, its freezes or its deployments.
 */
async function activityOf(products: Product[]): Promise<Map<string, TActivity>> {
  const ids = products.map((p) => p.id);
  const out = new Map<string, TActivity>();
  if (ids.length === 0) return out;
  const sdb = scopedDb(products[0]!.workspaceId);
  const [freezes, active, deployed] = await Promise.all([
    sdb.sourceFreeze.findMany({
      where: { productId: { in: ids } },
      orderBy: [{ productId: "asc" }, { createdAt: "desc" }],
      distinct: ["productId"],
      select: { productId: true, status: true, updatedAt: true },
    }),
    sdb.deployment.groupBy({
      by: ["productId"],
      where: { productId: { in: ids }, status: "active" },
      _count: { _all: true },
    }),
    sdb.deployment.groupBy({ by: ["productId"], where: { productId: { in: ids } }, _max: { updatedAt: true } }),
  ]);
  const latestFreeze = new Map(freezes.map((f) => [f.productId, f]));
  const live = new Set(active.map((a) => a.productId));
  const lastDeploy = new Map(deployed.map((d) => [d.productId, d._max.updatedAt]));
  for (const p of products) {
    const f = latestFreeze.get(p.id);
    const status: TProductStatus = live.has(p.id)
      ? "live"
      : !f || f.status === "pending"
        ? "building"
        : f.status === "frozen"
          ? "ready"
          : "failed";
    const times = [p.updatedAt, f?.updatedAt, lastDeploy.get(p.id)].filter((t): t is Date => t instanceof Date);
    out.set(p.id, { status, lastActivityAt: new Date(Math.max(...times.map((t) => t.getTime()))) });
  }
  return out;
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
export async function createProduct(
  caller: TCaller,
  workspaceId: string,
  raw: { repo_url: string; ref: string; name?: string },
) {
  await checkIntakeSource(workspaceId, raw.repo_url, raw.ref);
  const input = { ...raw, repo_url: redactRepoUrl(raw.repo_url) };
  const explicit = raw.name?.trim();
  // Without a name, the repository's (`shop`, then `shop-2`, ...); a lost race for it picks the next one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await createProductNamed(caller, workspaceId, input, explicit);
    } catch (err) {
      if (!isNameRace(err)) throw err;
      if (explicit) throw nameTaken("products", explicit);
      if (attempt >= 3) throw err;
    }
  }
}

async function createProductNamed(
  caller: TCaller,
  workspaceId: string,
  input: { repo_url: string; ref: string },
  explicit: string | undefined,
) {
  const productId = newId("prod");
  const revisionId = newId("rev");
  const freezeId = newId("frz");
  await scopedDb(workspaceId).$transaction(async (tx) => {
    if (explicit) await assertNameFree(tx, "products", workspaceId, explicit);
    const name = explicit ?? (await freeName(tx, "products", workspaceId, repoBaseName(input.repo_url)));
    await tx.product.create({
      data: {
        id: productId,
        workspaceId,
        name,
        inputRevisionId: revisionId,
        repoUrl: input.repo_url,
        ref: input.ref,
        createdBy: caller.userId,
      },
    });
    await tx.revision.create({
      data: { id: revisionId, workspaceId, productId, inputRevisionId: revisionId, freezeId },
    });
    await tx.sourceFreeze.create({
      data: {
        id: freezeId,
        workspaceId,
        productId,
        revisionId,
        repoUrl: input.repo_url,
        ref: input.ref,
        correlationId: caller.correlationId,
        createdBy: caller.userId,
      },
    });
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "product.created",
      target: { kind: "product", id: productId },
      correlationId: caller.correlationId,
      details: { name, repo_url: input.repo_url, ref: input.ref, source_freeze_id: freezeId },
    });
    await emitEvent(tx, {
      workspaceId,
      type: "product.created",
      correlationId: caller.correlationId,
      subject: productId,
      data: {
        product_id: productId,
        workspace_id: workspaceId,
        input_revision_id: revisionId,
        source_freeze_id: freezeId,
      },
    });
  });
  return {
    source_freeze_id: freezeId,
    status: "pending" as const,
    product_id: productId,
    links: { self: freezeLink(workspaceId, freezeId) },
  };
}

/** A new revision of an existing product from another ref (or the same ref, later). */
export async function refreezeProduct(caller: TCaller, workspaceId: string, productId: string, ref: string) {
  const product = await getOwnedProduct(workspaceId, productId);
  await checkIntakeSource(workspaceId, product.repoUrl, ref);
  const revisionId = newId("rev");
  const freezeId = newId("frz");
  await scopedDb(workspaceId).$transaction(async (tx) => {
    await tx.revision.create({
      data: { id: revisionId, workspaceId, productId, inputRevisionId: product.inputRevisionId, freezeId },
    });
    await tx.sourceFreeze.create({
      data: {
        id: freezeId,
        workspaceId,
        productId,
        revisionId,
        repoUrl: product.repoUrl,
        ref,
        correlationId: caller.correlationId,
        createdBy: caller.userId,
      },
    });
  });
  return {
    source_freeze_id: freezeId,
    status: "pending" as const,
    product_id: productId,
    links: { self: freezeLink(workspaceId, freezeId) },
  };
}

export async function getOwnedProduct(workspaceId: string, productId: string): Promise<Product> {
  const p = await scopedDb(workspaceId).product.findUnique({ where: { id: productId } });
  if (!p) throw notFound(`Product ${productId}`);
  return p;
}

export async function getProduct(workspaceId: string, productId: string): Promise<TProduct> {
  const p = await getOwnedProduct(workspaceId, productId);
  return toProduct(p, (await activityOf([p])).get(p.id));
}

export async function listProducts(workspaceId: string, q: TListQuery): Promise<TPage<TProduct>> {
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).product.findMany({ ...args, where: args.where });
  const activity = await activityOf(rows.slice(0, q.limit));
  return toPage(rows, q, (p) => toProduct(p, activity.get(p.id)));
}

/** PATCH: a new name, unique in the workspace ignoring case (409 name_taken). Same name: unchanged, no audit. */
export async function renameProduct(
  caller: TCaller,
  workspaceId: string,
  productId: string,
  rawName: string,
): Promise<TProduct> {
  const name = rawName.trim();
  await scopedDb(workspaceId)
    .$transaction(async (tx) => {
      const p = await tx.product.findUnique({ where: { id: productId } });
      if (!p) throw notFound(`Product ${productId}`);
      if (p.name === name) return;
      await assertNameFree(tx, "products", workspaceId, name, productId);
      await tx.product.update({ where: { id: productId }, data: { name, updatedAt: new Date() } });
      await writeAudit(tx, {
        workspaceId,
        actor: { kind: "user", id: caller.userId },
        action: "product.renamed",
        target: { kind: "product", id: productId },
        correlationId: caller.correlationId,
        details: { from: p.name, to: name },
      });
    })
    .catch((err: unknown) => {
      throw isNameRace(err) ? nameTaken("products", name) : err;
    });
  return getProduct(workspaceId, productId);
}

export function toSourceFreeze(
  f: SourceFreeze & { product: Product },
  revision: Pick<Revision, "id" | "createdAt">,
): TSourceFreeze {
  const out: TSourceFreeze = {
    id: f.id,
    status: f.status as TSourceFreeze["status"],
    product: {
      id: f.product.id,
      workspace_id: f.product.workspaceId,
      type: "hosted-app",
      created_at: iso(f.product.createdAt),
    },
    revision: {
      id: revision.id,
      product_id: f.productId,
      input_type: "repository",
      created_at: iso(revision.createdAt),
    },
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
  const f = await scopedDb(workspaceId).sourceFreeze.findUnique({
    where: { id: freezeId },
    include: { product: true },
  });
  if (!f) throw notFound(`Source freeze ${freezeId}`);
  const rev = await scopedDb(workspaceId).revision.findUniqueOrThrow({
    where: { id: f.revisionId },
    select: { id: true, createdAt: true },
  });
  return toSourceFreeze(f, rev);
}
