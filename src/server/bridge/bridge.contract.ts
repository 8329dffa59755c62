import { z } from "zod";
import { isValidAddress } from "@/server/domain/source/contract-rules";
import type { TUsage } from "./providers/types";

/**
 * BridgeRequest / BridgeOutput per capability and action (spec 4.3: "not
 * shown"; consistent with the event request shapes of spec 6.2). Keys follow
 * the scope rule: start with "/", no "..".
 */
export const zKey = z
  .string()
  .min(1)
  .max(1024)
  .refine((k) => k.startsWith("/") && !k.includes(".."), "must start with / and contain no ..");

export const ZKvGet = z.strictObject({ key: zKey });
export const ZKvSet = z.strictObject({ key: zKey, value: z.json() });
export const ZKvDelete = z.strictObject({ key: zKey });
export const ZKvList = z.strictObject({
  prefix: zKey,
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().max(1024).optional(),
});
export const ZKvIncrement = z.strictObject({
  key: zKey,
  by: z
    .number()
    .int()
    .min(-(2 ** 53) + 1)
    .max(2 ** 53 - 1)
    .default(1),
});

const ZMessage = z.strictObject({ role: z.enum(["system", "user", "assistant"]), content: z.string().max(1_000_000) });
export const ZAiGenerate = z.strictObject({
  model_kind: z.enum(["text", "embedding"]),
  input: z.union([
    z.strictObject({ messages: z.array(ZMessage).min(1).max(200) }),
    z.strictObject({ text: z.string().min(1).max(1_000_000) }),
  ]),
  max_tokens: z
    .number()
    .int()
    .positive()
    .max(2 ** 53 - 1)
    .optional(),
});

const zBase64 = z
  .string()
  .max(1_400_000)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64");
export const ZStorageRead = z.strictObject({ key: zKey });
export const ZStorageWrite = z.strictObject({
  key: zKey,
  content_base64: zBase64,
  content_type: z.string().min(1).max(255).optional(),
});
export const ZStorageDelete = z.strictObject({ key: zKey });
export const ZStorageList = z.strictObject({
  prefix: zKey,
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().max(1400).optional(),
});

const zAddress = z
  .string()
  .max(254)
  .refine((v) => isValidAddress(v), "must be a lower-case email address (spec 2.7 address rule)");
export const ZEmailSend = z
  .strictObject({
    from: zAddress,
    recipients: z.array(zAddress).min(1).max(50),
    subject: z.string().min(1).max(998),
    text: z.string().max(1_048_576).optional(),
    html: z.string().max(1_048_576).optional(),
  })
  .refine((b) => b.text !== undefined || b.html !== undefined, { message: "text or html is required", path: ["text"] });

export const BRIDGE_ACTIONS = {
  "data.kv": { get: ZKvGet, set: ZKvSet, delete: ZKvDelete, list: ZKvList, increment: ZKvIncrement },
  "ai.generate": { generate: ZAiGenerate },
  "storage.object": { read: ZStorageRead, write: ZStorageWrite, delete: ZStorageDelete, list: ZStorageList },
  "email.send": { send: ZEmailSend },
} as const;
export type TBridgeCapability = keyof typeof BRIDGE_ACTIONS;
export const BRIDGE_CAPABILITIES = Object.keys(BRIDGE_ACTIONS) as TBridgeCapability[];
export const ALL_ACTIONS = ["generate", "read", "write", "delete", "list", "get", "set", "increment", "send"] as const;

/** Spec 6.3 result reasons and the HTTP status each denial answers with. */
export const REASON_STATUS = {
  outside_contract: 403,
  permission_denied: 403,
  policy_blocked: 403,
  binding_missing: 409,
  binding_revoked: 409,
  usage_denied: 429,
  provider_unavailable: 503,
  provider_rejected: 422,
  output_blocked: 403,
} as const;
export type TResultReason = keyof typeof REASON_STATUS;

export type { TUsage };

export type TBridgeOutput = {
  capability_invocation_id: string;
  capability: string;
  action: string;
  outcome: "completed";
  provider: string;
  fallback_used: boolean;
  usage: TUsage;
  output: unknown;
};
