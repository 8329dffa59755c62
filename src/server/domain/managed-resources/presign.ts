import { createHmac } from "node:crypto";
import { purposeKey, safeEqual } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { MAX_OBJECT_BYTES } from "./bucket-objects";
import { invalid } from "./managed-resources.model";
import type { TPresigned } from "./objects.contract";

/**
 * Presigned object URLs (docs/decisions.md "Limits"), after S3's
 * query-string authentication:
 *
 *   {CAPSTAN_PUBLIC_URL}/v1/buckets/{mres}/{key}?method=PUT&expires=<unix s>&kid=<kek id>&signature=<base64url>
 *
 * signature = HMAC-SHA256(HKDF(master key, "presign-v1"), "capstan-presign-v1\n" method "\n" mres "\n" key "\n" expires).
 * Nothing is stored: the URL carries everything and the server key decides.
 * The key id names the master key it was signed under, so URLs signed before
 * a master-key rotation verify while that key is listed as previous. Each
 * URL is good for one method, one bucket and one key until it expires.
 */
const PURPOSE = "presign-v1";
type TMethod = TPresigned["method"];

function sign(
  kekId: string | undefined,
  method: string,
  mres: string,
  key: string,
  expires: number,
): { kid: string; signature: string } | null {
  const k = purposeKey(PURPOSE, kekId);
  if (!k) return null;
  const signature = createHmac("sha256", k.key)
    .update(`capstan-presign-v1\n${method}\n${mres}\n${key}\n${expires}`)
    .digest("base64url");
  return { kid: k.kekId, signature };
}

/** The key as one URL path segment (slashes too are percent-encoded). */
const keyPath = (key: string) => encodeURIComponent(key);

export async function presignObject(
  workspaceId: string,
  mresId: string,
  input: { method: TMethod; key: string; expires_in: number },
  now = new Date(),
): Promise<TPresigned> {
  const r = await scopedDb(workspaceId).managedResource.findUnique({
    where: { id: mresId },
    select: { kind: true, status: true, name: true },
  });
  if (!r) throw notFound(`Managed resource ${mresId}`);
  if (r.kind !== "object_bucket")
    throw invalid("/mres", "is a postgres resource; only buckets have objects", "presign_buckets_only");
  if (r.status !== "available")
    throw new AppError(
      "conflict",
      `Managed resource ${r.name} is ${r.status}; URLs are signed only for an available bucket`,
      { reason: "resource_not_available" },
    );
  // URLs normalise a "." or ".." path segment away (even percent-encoded): such a key has no URL.
  if (input.key === "." || input.key === "..") throw invalid("/key", "must not be . or .. (a URL cannot address them)");
  const expires = Math.floor(now.getTime() / 1000) + input.expires_in;
  const signed = sign(undefined, input.method, mresId, input.key, expires)!;
  const q = new URLSearchParams({
    method: input.method,
    expires: String(expires),
    kid: signed.kid,
    signature: signed.signature,
  });
  return {
    url: `${env().CAPSTAN_PUBLIC_URL.replace(/\/$/, "")}/v1/buckets/${mresId}/${keyPath(input.key)}?${q}`,
    method: input.method,
    key: input.key,
    expires_at: new Date(expires * 1000).toISOString(),
    max_bytes: input.method === "PUT" ? MAX_OBJECT_BYTES : null,
  };
}

const refused = (reason: string, message: string) => new AppError("forbidden", message, { reason });

/**
 * Checks a presigned request: the signature (over method, bucket, key and
 * expiry), then the method, then the expiry; answers the bucket's workspace.
 * Every failure is a 403 problem with its reason; nothing is read or written.
 */
export async function verifyPresigned(
  req: Request,
  mresId: string,
  rawKey: string,
  now = new Date(),
): Promise<{ workspaceId: string; key: string }> {
  const q = new URL(req.url).searchParams;
  const [method, expiresText, kid, signature] = ["method", "expires", "kid", "signature"].map((n) => q.get(n));
  if (!method || !expiresText || !kid || !signature) {
    throw refused(
      "presign_invalid",
      "This URL is not a presigned object URL: method, expires, kid and signature are all required",
    );
  }
  let key: string;
  try {
    key = decodeURIComponent(rawKey);
  } catch {
    throw new AppError("bad_request", "the key is not valid percent-encoding");
  }
  const expires = /^\d{1,12}$/.test(expiresText) ? Number(expiresText) : NaN;
  const expected = Number.isFinite(expires) ? sign(kid, method, mresId, key, expires) : null;
  if (!expected || !safeEqual(expected.signature, signature)) {
    throw refused(
      "presign_signature_mismatch",
      "The signature does not match this bucket, key, method and expiry (a URL altered, or signed for another object)",
    );
  }
  const used = req.method.toUpperCase();
  if (used !== method) throw refused("presign_method_mismatch", `This URL was signed for ${method}, not ${used}`);
  if (now.getTime() > expires * 1000)
    throw refused("presign_expired", `This URL expired at ${new Date(expires * 1000).toISOString()}`);
  // platform-scoped: a public route with no principal; the signature names the bucket, its row names the workspace.
  const r = await db().managedResource.findUnique({
    where: { id: mresId },
    select: { workspaceId: true, kind: true, status: true, name: true },
  });
  if (!r || r.kind !== "object_bucket" || r.status === "deleted") throw notFound(`Bucket ${mresId}`);
  if (r.status !== "available")
    throw new AppError("conflict", `Bucket ${r.name} is ${r.status}`, { reason: "resource_not_available" });
  return { workspaceId: r.workspaceId, key };
}
