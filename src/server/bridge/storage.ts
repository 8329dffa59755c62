import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import { blobStore } from "@/server/platform/blob-store";
import { db } from "@/server/platform/db/client";
import type { TUsage } from "./bridge.contract";
import { Deny } from "./pipeline";

/**
 * storage.object on the platform blob store (provider `platform` in the
 * contract's allow-list): keys per product point at content-addressed blobs,
 * so identical objects are stored once. An S3-compatible provider through a
 * binding is a later step; a contract that does not allow `platform` gets
 * provider_unavailable until then.
 */
type TStorageScope = { prefix: string; max_object_bytes: number };
type TTarget = { workspaceId: string; productId: string };

export function objectBytes(action: string, body: Record<string, unknown>): number {
  return action === "write" ? Buffer.from(String(body.content_base64 ?? ""), "base64").length : 0;
}

/** Contract checks before any usage is reserved: key within the prefix, object within size, a usable provider. */
export function checkStorageScope(entry: TCapabilityEntry, action: string, body: Record<string, unknown>): void {
  const scope = entry.scope as TStorageScope;
  const key = String(body.key ?? body.prefix);
  if (!key.startsWith(scope.prefix)) throw new Deny("outside_contract", `key ${key} is outside the contract prefix ${scope.prefix}`);
  const bytes = objectBytes(action, body);
  if (bytes > scope.max_object_bytes) throw new Deny("outside_contract", `the object is ${bytes} bytes; the contract allows ${scope.max_object_bytes}`);
  if (!entry.provider.allow.includes("platform")) {
    throw new Deny("provider_unavailable", "only the platform blob store serves storage.object on this deployment; allow provider `platform`");
  }
}

export async function runStorage(
  t: TTarget,
  action: string,
  body: Record<string, unknown>,
): Promise<{ provider: string; bindingId: null; fallbackUsed: false; usage: TUsage; output: unknown }> {
  const done = (output: unknown, bytes = 0) => ({
    provider: "platform", bindingId: null, fallbackUsed: false as const, usage: { units: bytes, unit: "bytes" as const }, output,
  });
  const where = { workspaceId_productId_key: { workspaceId: t.workspaceId, productId: t.productId, key: String(body.key) } };
  switch (action) {
    case "write": {
      const bytes = Buffer.from(String(body.content_base64), "base64");
      const blob = await blobStore().put(bytes);
      const contentType = String(body.content_type ?? "application/octet-stream");
      await db().storageObject.upsert({
        where,
        create: { workspaceId: t.workspaceId, productId: t.productId, key: String(body.key), sha256: blob.sha256, sizeBytes: BigInt(bytes.length), contentType },
        update: { sha256: blob.sha256, sizeBytes: BigInt(bytes.length), contentType, updatedAt: new Date() },
      });
      return done({ key: body.key, size_bytes: bytes.length, sha256: blob.sha256 }, bytes.length);
    }
    case "read": {
      const row = await db().storageObject.findUnique({ where });
      const bytes = row ? await blobStore().get(row.sha256) : null;
      if (!row || !bytes) return done({ key: body.key, found: false, content_base64: null, size_bytes: 0, sha256: null, content_type: null });
      return done(
        { key: body.key, found: true, content_base64: bytes.toString("base64"), size_bytes: bytes.length, sha256: row.sha256, content_type: row.contentType },
        bytes.length,
      );
    }
    case "delete": {
      const n = await db().storageObject.deleteMany({ where: { workspaceId: t.workspaceId, productId: t.productId, key: String(body.key) } });
      return done({ key: body.key, deleted: n.count > 0 });
    }
    case "list": {
      const limit = Number(body.limit ?? 50);
      const after = body.cursor ? Buffer.from(String(body.cursor), "base64url").toString("utf8") : undefined;
      const rows = await db().storageObject.findMany({
        where: { workspaceId: t.workspaceId, productId: t.productId, key: { startsWith: String(body.prefix), ...(after ? { gt: after } : {}) } },
        orderBy: { key: "asc" },
        take: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return done({
        objects: page.map((r) => ({ key: r.key, size_bytes: Number(r.sizeBytes), sha256: r.sha256 })),
        next_cursor: rows.length > limit && last ? Buffer.from(last.key).toString("base64url") : null,
      });
    }
    default:
      throw new Deny("outside_contract", `storage.object has no action ${action}`);
  }
}
