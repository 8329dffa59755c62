import { randomBytes } from "node:crypto";
import type { PushDelivery, PushHook } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { seal } from "@/server/platform/crypto";
import type { TTx } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso, isoOrNull } from "@/server/platform/time";
import { getOwnedProduct } from "@/server/domain/source/products.service";
import { isUploadSource } from "@/server/domain/source/upload-source";
import type { TPushDelivery, TPushHook } from "./push-hooks.contract";

/**
 * A product's push hook (docs/decisions.md "Deploy on push"): one per
 * product, its secret sealed at rest (AAD = the hook id), shown once at
 * creation and at each rotation, never again. Creating, rotating and removing
 * it are owner/admin operations, audited like other secrets.
 */
type TCaller = { userId: string; correlationId: string };
type THookRow = Omit<PushHook, "secretSealed">;

export const hookAad = (id: string) => `push-hook:${id}`;
export const pushHookUrl = (productId: string) =>
  `${env().CAPSTAN_PUBLIC_URL.replace(/\/$/, "")}/v1/hooks/products/${productId}/push`;
const newSecret = () => `cph_${randomBytes(24).toString("hex")}`;

export function toPushHook(h: THookRow, trackedRef: string): TPushHook {
  return {
    id: h.id,
    workspace_id: h.workspaceId,
    product_id: h.productId,
    url: pushHookUrl(h.productId),
    tracked_ref: trackedRef,
    secret_rotated_at: isoOrNull(h.secretRotatedAt),
    created_by: h.createdBy,
    created_at: iso(h.createdAt),
    updated_at: iso(h.updatedAt),
  };
}

export function toPushDelivery(d: PushDelivery): TPushDelivery {
  return {
    id: d.id,
    workspace_id: d.workspaceId,
    product_id: d.productId,
    delivery_id: d.deliveryId,
    ref: d.ref,
    commit_sha: d.commitSha,
    status: d.status as TPushDelivery["status"],
    reason_code: d.reasonCode,
    message: d.message,
    source_freeze_id: d.freezeId,
    revision_id: d.revisionId,
    deployment_id: d.deploymentId,
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  };
}

async function audit(
  tx: TTx,
  caller: TCaller,
  hook: THookRow,
  action: "credential.created" | "credential.revoked",
  details: Record<string, unknown>,
) {
  await writeAudit(tx, {
    workspaceId: hook.workspaceId,
    actor: { kind: "user", id: caller.userId },
    action,
    target: { kind: "push_hook_secret", id: hook.id },
    correlationId: caller.correlationId,
    details: { product_id: hook.productId, ...details },
  });
}

export async function getPushHook(workspaceId: string, productId: string): Promise<TPushHook> {
  const product = await getOwnedProduct(workspaceId, productId);
  const hook = await scopedDb(workspaceId).pushHook.findUnique({ where: { productId } });
  if (!hook) throw notFound(`The push hook of product ${productId}`);
  return toPushHook(hook, product.ref);
}

/** Creates the product's hook (409 push_hook_exists when it has one: rotate its secret instead). */
export async function createPushHook(
  caller: TCaller,
  workspaceId: string,
  productId: string,
): Promise<TPushHook & { secret: string }> {
  const product = await getOwnedProduct(workspaceId, productId);
  if (isUploadSource(product.repoUrl)) {
    throw new AppError(
      "conflict",
      `Product ${productId} is deployed from uploaded directories (capstan deploy), not a repository: there is nothing to push to`,
      { reason: "not_a_repository" },
    );
  }
  const id = newId("hook");
  const secret = newSecret();
  try {
    const hook = await scopedDb(workspaceId).$transaction(async (tx) => {
      const row = await tx.pushHook.create({
        data: { id, workspaceId, productId, secretSealed: seal(secret, hookAad(id)), createdBy: caller.userId },
        omit: { secretSealed: true },
      });
      await audit(tx, caller, row, "credential.created", { kind: "push_hook", url: pushHookUrl(productId) });
      return row;
    });
    return { ...toPushHook(hook, product.ref), secret };
  } catch (err) {
    if ((err as { code?: string }).code === "P2002") {
      throw new AppError(
        "conflict",
        `Product ${productId} already has a push hook: rotate its secret to get a new one`,
        { reason: "push_hook_exists" },
      );
    }
    throw err;
  }
}

/** A new secret (shown once); the old one stops verifying at once (a push signed with it is a 401). */
export async function rotatePushHookSecret(
  caller: TCaller,
  workspaceId: string,
  productId: string,
): Promise<TPushHook & { secret: string }> {
  const product = await getOwnedProduct(workspaceId, productId);
  const secret = newSecret();
  const hook = await scopedDb(workspaceId).$transaction(async (tx) => {
    const current = await tx.pushHook.findUnique({ where: { productId } });
    if (!current) throw notFound(`The push hook of product ${productId}`);
    const now = new Date();
    const row = await tx.pushHook.update({
      where: { id: current.id },
      data: { secretSealed: seal(secret, hookAad(current.id)), secretRotatedAt: now, updatedAt: now },
    });
    await audit(tx, caller, row, "credential.created", { kind: "push_hook", rotated: true });
    return row;
  });
  return { ...toPushHook(hook, product.ref), secret };
}

/** Removes the hook (pushes are refused from then on) and its deliveries. */
export async function deletePushHook(caller: TCaller, workspaceId: string, productId: string): Promise<void> {
  await getOwnedProduct(workspaceId, productId);
  await scopedDb(workspaceId).$transaction(async (tx) => {
    const current = await tx.pushHook.findUnique({ where: { productId } });
    if (!current) throw notFound(`The push hook of product ${productId}`);
    await tx.pushHook.delete({ where: { id: current.id } });
    await audit(tx, caller, current, "credential.revoked", { kind: "push_hook" });
  });
}

export async function listPushDeliveries(
  workspaceId: string,
  productId: string,
  q: TListQuery,
): Promise<TPage<TPushDelivery>> {
  await getOwnedProduct(workspaceId, productId);
  const args = keysetArgs(q);
  const rows = await scopedDb(workspaceId).pushDelivery.findMany({ ...args, where: { ...args.where, productId } });
  return toPage(rows, q, toPushDelivery);
}
