import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import type { TUsage } from "./bridge.contract";
import { Deny } from "./errors";
import { KvError, kvDelete, kvGet, kvIncrement, kvList, kvSet, type TKvTarget } from "./providers/kv";
import { fieldText } from "@/server/platform/body";

type TKvScope = { prefix: string; max_value_bytes: number; max_keys: number };

/** Contract checks of a data.kv call (before any usage is reserved): key within the prefix, value within size. */
export function checkKvScope(entry: TCapabilityEntry, action: string, body: Record<string, unknown>): void {
  const scope = entry.scope as TKvScope;
  const key = String(body.key ?? body.prefix);
  if (!key.startsWith(scope.prefix))
    throw new Deny("outside_contract", `key ${key} is outside the contract prefix ${scope.prefix}`);
  if (action === "set") {
    const bytes = Buffer.byteLength(JSON.stringify(body.value ?? null));
    if (bytes > scope.max_value_bytes) {
      throw new Deny("outside_contract", `the value is ${bytes} bytes; the contract allows ${scope.max_value_bytes}`);
    }
  }
}

export async function runKv(
  target: TKvTarget,
  entry: TCapabilityEntry,
  action: string,
  body: Record<string, unknown>,
): Promise<{ provider: string; bindingId: null; fallbackUsed: false; usage: TUsage; output: unknown }> {
  const scope = entry.scope as TKvScope;
  const done = (output: unknown, bytes = 0) => ({
    provider: "platform",
    bindingId: null,
    fallbackUsed: false as const,
    usage: { units: bytes, unit: "bytes" as const },
    output,
  });
  try {
    switch (action) {
      case "get": {
        const hit = await kvGet(target, body.key as string);
        return done({ key: body.key, found: !!hit, value: hit?.value ?? null }, hit?.bytes ?? 0);
      }
      case "set": {
        const json = JSON.stringify(body.value ?? null);
        const bytes = Buffer.byteLength(json);
        await kvSet(target, body.key as string, json, bytes, scope.max_keys);
        return done({ key: body.key, stored: true, bytes }, bytes);
      }
      case "delete":
        return done({ key: body.key, deleted: await kvDelete(target, body.key as string) });
      case "list": {
        const after = body.cursor ? Buffer.from(fieldText(body.cursor), "base64url").toString("utf8") : undefined;
        return done(await kvList(target, body.prefix as string, body.limit as number, after));
      }
      case "increment":
        return done({
          key: body.key,
          value: await kvIncrement(target, body.key as string, body.by as number, scope.max_keys),
        });
      default:
        throw new Deny("outside_contract", `data.kv has no action ${action}`);
    }
  } catch (err) {
    if (err instanceof KvError) {
      throw new Deny(err.kind === "max_keys" ? "outside_contract" : "provider_rejected", err.message);
    }
    throw err;
  }
}
