import { createHmac, timingSafeEqual } from "node:crypto";
import type { PushDelivery, PushHook } from "@/generated/prisma/client";
import { sha256Hex, unseal } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { isId, newId } from "@/server/platform/ids";
import { checkIntakeSource } from "@/server/domain/source/intake-checks";
import { hookAad, toPushDelivery } from "./push-hooks.service";
import type { TPushDelivery } from "./push-hooks.contract";

/**
 * POST /v1/hooks/products/{prod}/push (docs/decisions.md "Deploy on push"):
 * a repository's push, authenticated by an HMAC-SHA256 of the raw body with
 * the hook's secret, never a bearer:
 *  - `X-Hub-Signature-256: sha256=<hex>` (GitHub, Gitea, Forgejo), or
 *  - `Capstan-Signature: t=<unix seconds>,v1=<hex HMAC(secret, t + "." + body)>`
 *    (the generic form, for a git hook with curl; refused beyond 300 s).
 * The body is GitHub's push event or the generic `{ref, after?}`. A push to
 * the product's ref freezes the pushed commit (a new revision); the worker
 * then confirms and deploys it to preview when nothing an owner must approve
 * changed (push-confirm.ts). Every refusal is a problem document and leaves
 * nothing frozen; deliveries are unique per hook by the sender's delivery id,
 * so a replay answers the first outcome and freezes nothing new.
 */
export const GITHUB_SIGNATURE = "x-hub-signature-256";
export const GENERIC_SIGNATURE = "capstan-signature";
const TOLERANCE_S = 300;
const ZERO_SHA = /^0{40}$/;

export type TPushHeaders = {
  github: string | null;
  generic: string | null;
  deliveryId: string | null;
  event: string | null;
};
export type TPushOutcome = { status: 200 | 202; replayed: boolean; delivery: TPushDelivery | null; pong?: true };

const unauthenticated = (detail: string, reason: string) =>
  new AppError("unauthenticated", detail, {
    reason,
    headers: { "www-authenticate": `HMAC realm="push-hook", headers="X-Hub-Signature-256 Capstan-Signature"` },
  });

function verifyGithub(secret: string, raw: string, header: string): boolean {
  const m = /^sha256=([0-9a-f]{64})$/.exec(header.trim());
  if (!m) return false;
  return timingSafeEqual(Buffer.from(m[1]!, "hex"), createHmac("sha256", secret).update(raw).digest());
}

function verifyGeneric(secret: string, raw: string, header: string, nowS: number): void {
  const parts = new Map<string, string[]>();
  for (const kv of header.split(",")) {
    const i = kv.indexOf("=");
    if (i > 0) parts.set(kv.slice(0, i).trim(), [...(parts.get(kv.slice(0, i).trim()) ?? []), kv.slice(i + 1).trim()]);
  }
  const t = Number(parts.get("t")?.[0]);
  if (!Number.isSafeInteger(t))
    throw unauthenticated("the Capstan-Signature header has no timestamp (t=<unix seconds>)", "signature_invalid");
  if (Math.abs(nowS - t) > TOLERANCE_S)
    throw unauthenticated(
      `the delivery's timestamp is more than ${TOLERANCE_S} s away from now (stale or replayed)`,
      "signature_stale",
    );
  const want = createHmac("sha256", secret).update(`${t}.${raw}`).digest();
  const ok = (parts.get("v1") ?? []).some(
    (hex) => /^[0-9a-f]{64}$/.test(hex) && timingSafeEqual(Buffer.from(hex, "hex"), want),
  );
  if (!ok) throw unauthenticated("the delivery's signature does not match the hook's secret", "signature_invalid");
}

function verify(hook: PushHook, raw: string, h: TPushHeaders): void {
  const secret = unseal(hook.secretSealed, hookAad(hook.id));
  if (h.github) {
    if (!verifyGithub(secret, raw, h.github))
      throw unauthenticated("the delivery's X-Hub-Signature-256 does not match the hook's secret", "signature_invalid");
    return;
  }
  if (h.generic) return verifyGeneric(secret, raw, h.generic, Math.floor(Date.now() / 1000));
  throw unauthenticated("the delivery carries no X-Hub-Signature-256 or Capstan-Signature header", "signature_missing");
}

/** Is the pushed ref the product's? `main`, `refs/heads/main` and a tag name each match themselves. */
export function tracks(productRef: string, pushed: string): boolean {
  const short = pushed.replace(/^refs\/(heads|tags)\//, "");
  return productRef === pushed || productRef === short || productRef.replace(/^refs\/(heads|tags)\//, "") === short;
}

type TPush = { ref: string; after: string | null; deleted: boolean };

function parsePush(raw: string): TPush {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new AppError("bad_request", "The delivery's body is not JSON", { reason: "malformed_json" });
  }
  const b = body as { ref?: unknown; after?: unknown; deleted?: unknown };
  const errors: { path: string; message: string }[] = [];
  if (typeof body !== "object" || body === null || Array.isArray(body))
    errors.push({ path: "", message: "must be a JSON object (a push event)" });
  else {
    if (typeof b.ref !== "string" || !b.ref || b.ref.length > 256)
      errors.push({ path: "/ref", message: "must be the pushed ref (1..256 characters)" });
    if (b.after !== undefined && (typeof b.after !== "string" || !/^[0-9a-f]{40}$/.test(b.after)))
      errors.push({ path: "/after", message: "must be the pushed commit's 40-hex id" });
    if (b.deleted !== undefined && typeof b.deleted !== "boolean")
      errors.push({ path: "/deleted", message: "must be a boolean" });
  }
  if (errors.length)
    throw new AppError("validation_failed", "The delivery is not a push event ({ref, after?})", {
      reason: "not_a_push",
      errors,
    });
  const after = typeof b.after === "string" ? b.after : null;
  return { ref: b.ref as string, after, deleted: b.deleted === true || (after !== null && ZERO_SHA.test(after)) };
}

const STATUS_OF: Record<string, number> = {
  malformed_json: 400,
  not_a_push: 422,
  ref_not_tracked: 422,
  ref_deleted: 422,
  event_not_supported: 422,
  source_refused: 422,
};

/** A recorded refusal answers the same problem again on a replay. */
function refusalOf(d: PushDelivery): AppError {
  const code = STATUS_OF[d.reasonCode ?? ""] === 400 ? "bad_request" : "validation_failed";
  return new AppError(code, d.message ?? "The delivery was refused", { reason: d.reasonCode ?? "rejected" });
}

export async function receivePush(
  productId: string,
  raw: string,
  h: TPushHeaders,
  correlationId: string,
): Promise<TPushOutcome> {
  // A malformed id and a product without a hook read the same: nothing here to push to.
  if (!isId("prod", productId)) throw notFound(`The push hook of product ${productId.slice(0, 40)}`);
  // platform-scoped: the hook is found by its product before any workspace is known; its row names the workspace.
  const hook = await db().pushHook.findUnique({ where: { productId }, omit: { secretSealed: false } });
  if (!hook) throw notFound(`The push hook of product ${productId}`);
  verify(hook, raw, h);
  if (h.event === "ping") return { status: 200, replayed: false, delivery: null, pong: true };

  const ws = hook.workspaceId;
  const deliveryId = (h.deliveryId ?? `sha256:${sha256Hex(raw)}`).slice(0, 128);
  const existing = await scopedDb(ws).pushDelivery.findUnique({
    where: { hookId_deliveryId: { hookId: hook.id, deliveryId } },
  });
  if (existing) return replay(existing);

  const product = await scopedDb(ws).product.findUniqueOrThrow({ where: { id: productId } });
  let push: TPush | null = null;
  let refusal: AppError | null = null;
  try {
    if (h.event && h.event !== "push")
      throw new AppError(
        "validation_failed",
        `Only push events deploy (this is ${JSON.stringify(h.event.slice(0, 64))})`,
        { reason: "event_not_supported" },
      );
    push = parsePush(raw);
    if (!tracks(product.ref, push.ref)) {
      throw new AppError(
        "validation_failed",
        `The push is to ${push.ref}; product ${productId} tracks ${product.ref}, so nothing was frozen`,
        { reason: "ref_not_tracked" },
      );
    }
    if (push.deleted)
      throw new AppError("validation_failed", `${push.ref} was deleted: there is nothing to freeze`, {
        reason: "ref_deleted",
      });
    await checkIntakeSource(ws, product.repoUrl, push.after ?? product.ref).catch((err: unknown) => {
      throw new AppError("validation_failed", (err as Error).message, { reason: "source_refused" });
    });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    refusal = err;
  }

  const id = newId("hkd");
  try {
    const row = await scopedDb(ws).$transaction(async (tx) => {
      const base = {
        id,
        workspaceId: ws,
        hookId: hook.id,
        productId,
        deliveryId,
        ref: push?.ref ?? null,
        commitSha: push?.after ?? null,
      };
      if (refusal) {
        return tx.pushDelivery.create({
          data: {
            ...base,
            status: "rejected",
            reasonCode: refusal.reason ?? "rejected",
            message: refusal.message.slice(0, 1000),
          },
        });
      }
      // The pushed commit itself (not the branch, which may move on before the freeze runs).
      const ref = push!.after ?? product.ref;
      const revisionId = newId("rev");
      const freezeId = newId("frz");
      await tx.revision.create({
        data: { id: revisionId, workspaceId: ws, productId, inputRevisionId: product.inputRevisionId, freezeId },
      });
      await tx.sourceFreeze.create({
        data: {
          id: freezeId,
          workspaceId: ws,
          productId,
          revisionId,
          repoUrl: product.repoUrl,
          ref,
          correlationId,
          createdBy: hook.createdBy,
        },
      });
      return tx.pushDelivery.create({ data: { ...base, status: "freezing", freezeId, revisionId } });
    });
    if (refusal) throw refusal;
    return { status: 202, replayed: false, delivery: toPushDelivery(row) };
  } catch (err) {
    // The same delivery id won a race: its outcome is the answer, nothing else is written.
    if ((err as { code?: string }).code === "P2002") {
      const first = await scopedDb(ws).pushDelivery.findUniqueOrThrow({
        where: { hookId_deliveryId: { hookId: hook.id, deliveryId } },
      });
      return replay(first);
    }
    throw err;
  }
}

function replay(d: PushDelivery): TPushOutcome {
  if (d.status === "rejected") throw refusalOf(d);
  return { status: 200, replayed: true, delivery: toPushDelivery(d) };
}
