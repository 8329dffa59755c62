import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import { blobStore, isBlobStoreOutage } from "@/server/platform/blob-store";
import { scopedDb } from "@/server/platform/db/scoped";
import { likeLiteral } from "@/server/platform/like";
import type { TUsage } from "./bridge.contract";
import {
  bindingSecret,
  candidateBindings,
  providerOrder,
  withFallback,
  type TAudits,
  type TBindingRow,
} from "./bindings";
import { Deny } from "./errors";
import { ObjectTooLarge, s3Storage } from "./providers/s3";
import { fieldText } from "@/server/platform/body";

/**
 * storage.object. Provider `platform` is the platform blob store (no binding:
 * keys per product point at content-addressed blobs, so identical objects
 * are stored once). Every other provider of the allow-list is S3-compatible
 * and needs a ready storage.object binding with provider_config {endpoint,
 * bucket, region?} (providers/s3.ts). Provider choice as for ai.generate:
 * prefer first, then the allow-list order, never outside it; fallback to the
 * next candidate only on provider_unavailable and only with `fallback:
 * listed` (audited `capability.fallback`). A binding's own limits
 * (capability_scope {prefix, max_object_bytes} and its actions) decide
 * whether it may serve a call; when ready bindings exist but none may, the
 * call is policy_blocked.
 */
type TStorageScope = { prefix: string; max_object_bytes: number };
type TTarget = { workspaceId: string; productId: string };
type TPlatformCandidate = { provider: "platform"; id: null; bindingId: null };
type TS3Candidate = {
  provider: string;
  id: string;
  bindingId: string;
  credentialId: string;
  endpoint: string;
  bucket: string;
  region: string;
  maxObjectBytes: number;
};

export type TStoragePlan = {
  candidates: Array<TPlatformCandidate | TS3Candidate>;
  fallback: "none" | "listed";
  /** The contract's max_object_bytes: a read of a larger object is refused (outside_contract). */
  contractMaxBytes: number;
};

export function objectBytes(action: string, body: Record<string, unknown>): number {
  return action === "write" ? Buffer.from(fieldText(body.content_base64), "base64").length : 0;
}

/**
 * Contract checks and provider choice before any usage is reserved: key
 * within the prefix, object within size (outside_contract), then the
 * candidates (binding_missing, binding_revoked, policy_blocked).
 */
export async function checkStorageScope(
  workspaceId: string,
  entry: TCapabilityEntry,
  action: string,
  body: Record<string, unknown>,
): Promise<TStoragePlan> {
  const scope = entry.scope as TStorageScope;
  const key = String(body.key ?? body.prefix);
  if (!key.startsWith(scope.prefix))
    throw new Deny("outside_contract", `key ${key} is outside the contract prefix ${scope.prefix}`);
  const bytes = objectBytes(action, body);
  if (bytes > scope.max_object_bytes)
    throw new Deny("outside_contract", `the object is ${bytes} bytes; the contract allows ${scope.max_object_bytes}`);

  const plan: TStoragePlan = {
    candidates: [],
    fallback: entry.provider.fallback,
    contractMaxBytes: scope.max_object_bytes,
  };
  const order = providerOrder(entry);
  const external = order.filter((p) => p !== "platform");
  let bindings: TBindingRow[] = [];
  if (external.length) {
    // The binding's own limits (set by the owner): its actions (checked by candidateBindings),
    // its capability_scope prefix and max_object_bytes.
    const covers = (b: TBindingRow): string | null => {
      const limit = (b.capabilityScope as { scope?: Partial<TStorageScope> } | null)?.scope;
      if (limit?.prefix !== undefined && !key.startsWith(limit.prefix))
        return `key ${key} is outside its prefix ${limit.prefix}`;
      if (limit?.max_object_bytes !== undefined && bytes > limit.max_object_bytes)
        return `the object is ${bytes} bytes; it allows ${limit.max_object_bytes}`;
      return null;
    };
    const externalEntry = {
      ...entry,
      provider: {
        ...entry.provider,
        allow: external,
        prefer: external.includes(entry.provider.prefer ?? "") ? entry.provider.prefer : undefined,
      },
    };
    try {
      bindings = await candidateBindings(workspaceId, externalEntry, action, covers);
    } catch (err) {
      // With `platform` allowed the platform store serves the call; no binding is needed.
      if (!(err instanceof Deny) || !order.includes("platform")) throw err;
    }
  }
  for (const provider of order) {
    if (provider === "platform") {
      plan.candidates.push({ provider: "platform", id: null, bindingId: null });
      continue;
    }
    for (const b of bindings.filter((r) => r.provider === provider)) {
      const cfg = b.config as { endpoint?: string; bucket?: string; region?: string };
      if (!cfg.endpoint || !cfg.bucket) continue;
      const limit = (b.capabilityScope as { scope?: Partial<TStorageScope> } | null)?.scope;
      plan.candidates.push({
        provider,
        id: b.id,
        bindingId: b.id,
        credentialId: b.credentialId,
        endpoint: cfg.endpoint,
        bucket: cfg.bucket,
        region: cfg.region ?? "us-east-1",
        maxObjectBytes: limit?.max_object_bytes ?? Number.MAX_SAFE_INTEGER,
      });
    }
  }
  if (!plan.candidates.length) {
    throw new Deny(
      "binding_missing",
      "no ready storage.object binding has an S3 endpoint and bucket (provider_config.endpoint, provider_config.bucket)",
    );
  }
  return plan;
}

type TStorageResult = {
  provider: string;
  bindingId: string | null;
  fallbackUsed: boolean;
  usage: TUsage;
  output: unknown;
};

export async function runStorage(
  plan: TStoragePlan,
  t: TTarget,
  action: string,
  body: Record<string, unknown>,
  audits: TAudits,
): Promise<TStorageResult> {
  // The platform store is a provider like any other here: its outage is provider_unavailable (fallback
  // allowed); any other error of it is a bug and is thrown as is. As for ai.generate: when every candidate
  // is a binding whose credential was revoked or has expired, the call is binding_revoked (withFallback).
  const {
    result: served,
    binding: c,
    fallbackUsed,
  } = await withFallback(
    plan.candidates,
    plan.fallback,
    audits,
    async (c) => {
      if (c.bindingId === null) return runPlatform(t, action, body);
      const secret = await bindingSecret(c.credentialId);
      try {
        return await s3Storage(
          { endpoint: c.endpoint, bucket: c.bucket, region: c.region, secret },
          t.productId,
          action,
          body,
          {
            maxReadBytes: Math.min(plan.contractMaxBytes, c.maxObjectBytes),
          },
        );
      } catch (err) {
        if (err instanceof ObjectTooLarge) {
          if (err.bytes > plan.contractMaxBytes)
            throw new Deny(
              "outside_contract",
              `the object is ${err.bytes} bytes; the contract allows ${plan.contractMaxBytes}`,
            );
          throw new Deny(
            "policy_blocked",
            `the object is ${err.bytes} bytes; binding ${c.bindingId} allows ${c.maxObjectBytes}`,
          );
        }
        throw err;
      }
    },
    (err, c) => c.bindingId === null && !isBlobStoreOutage(err),
  );
  return {
    provider: c.provider,
    bindingId: c.bindingId,
    fallbackUsed,
    usage: { units: served.bytes, unit: "bytes" },
    output: served.output,
  };
}

/** The platform blob store: per-product keys (storage_objects) pointing at content-addressed blobs. */
async function runPlatform(
  t: TTarget,
  action: string,
  body: Record<string, unknown>,
): Promise<{ output: unknown; bytes: number }> {
  const done = (output: unknown, bytes = 0) => ({ output, bytes });
  const sdb = scopedDb(t.workspaceId);
  const where = {
    workspaceId_productId_key: { workspaceId: t.workspaceId, productId: t.productId, key: String(body.key) },
  };
  switch (action) {
    case "write": {
      const bytes = Buffer.from(fieldText(body.content_base64), "base64");
      const blob = await blobStore().put(bytes);
      const contentType = fieldText(body.content_type, "application/octet-stream");
      await sdb.storageObject.upsert({
        where,
        create: {
          workspaceId: t.workspaceId,
          productId: t.productId,
          key: String(body.key),
          sha256: blob.sha256,
          sizeBytes: BigInt(bytes.length),
          contentType,
        },
        update: { sha256: blob.sha256, sizeBytes: BigInt(bytes.length), contentType, updatedAt: new Date() },
      });
      return done({ key: body.key, size_bytes: bytes.length, sha256: blob.sha256 }, bytes.length);
    }
    case "read": {
      const row = await sdb.storageObject.findUnique({ where });
      const bytes = row ? await blobStore().get(row.sha256) : null;
      if (!row || !bytes)
        return done({
          key: body.key,
          found: false,
          content_base64: null,
          size_bytes: 0,
          sha256: null,
          content_type: null,
        });
      return done(
        {
          key: body.key,
          found: true,
          content_base64: bytes.toString("base64"),
          size_bytes: bytes.length,
          sha256: row.sha256,
          content_type: row.contentType,
        },
        bytes.length,
      );
    }
    case "delete": {
      const n = await sdb.storageObject.deleteMany({ where: { productId: t.productId, key: String(body.key) } });
      return done({ key: body.key, deleted: n.count > 0 });
    }
    case "list": {
      const limit = Number(body.limit ?? 50);
      const after = body.cursor ? Buffer.from(fieldText(body.cursor), "base64url").toString("utf8") : undefined;
      const rows = await sdb.storageObject.findMany({
        where: {
          productId: t.productId,
          key: { startsWith: likeLiteral(String(body.prefix)), ...(after ? { gt: after } : {}) },
        },
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
