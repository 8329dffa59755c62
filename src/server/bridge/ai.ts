import { readCredentialSecret } from "@/server/domain/credentials/credentials.service";
import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import type { TAuditAction } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { AppError } from "@/server/platform/errors";
import type { TUsage } from "./bridge.contract";
import { Deny } from "./pipeline";
import { openAiGenerate, ProviderError } from "./providers/openai";

/**
 * ai.generate: contract scope checks, binding choice (prefer first, then the
 * allow-list order; never outside it) and the provider call with fallback to
 * the next allowed provider only when the contract says `fallback: listed`.
 */
const AI_TIMEOUT_MS = 30_000;

type TAiScope = { models: string[]; max_tokens_per_call: number };
type TBindingChoice = { id: string; provider: string; credentialId: string; baseUrl: string; model: string };

export type TAiPlan = {
  bindings: TBindingChoice[];
  fallback: "none" | "listed";
  reserveTokens: number;
  modelKind: "text" | "embedding";
  input: { messages: Array<{ role: string; content: string }> } | { text: string };
};

export async function planAiCall(workspaceId: string, entry: TCapabilityEntry, body: Record<string, unknown>): Promise<TAiPlan> {
  const scope = entry.scope as TAiScope;
  const modelKind = body.model_kind as "text" | "embedding";
  if (!scope.models.includes(modelKind)) throw new Deny("outside_contract", `model kind ${modelKind} is not in the contract`);
  const asked = body.max_tokens as number | undefined;
  if (asked !== undefined && asked > scope.max_tokens_per_call) {
    throw new Deny("outside_contract", `max_tokens ${asked} exceeds the contract's max_tokens_per_call ${scope.max_tokens_per_call}`);
  }
  const reserveTokens = Math.min(scope.max_tokens_per_call, asked ?? scope.max_tokens_per_call);

  const allow = entry.provider.allow;
  const order = [...new Set([...(entry.provider.prefer && allow.includes(entry.provider.prefer) ? [entry.provider.prefer] : []), ...allow])];
  const rows = await db().providerBinding.findMany({
    where: { workspaceId, capability: "ai.generate", provider: { in: allow } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  const ready = rows.filter((b) => b.status === "ready");
  if (!ready.length) {
    if (rows.length) throw new Deny("binding_revoked", "the workspace's ai.generate bindings for the allowed providers are revoked or expired");
    throw new Deny("binding_missing", `no ai.generate binding for an allowed provider (${allow.join(", ")})`);
  }
  const bindings: TBindingChoice[] = [];
  for (const provider of order) {
    for (const b of ready.filter((r) => r.provider === provider)) {
      const cs = b.capabilityScope as { provider_models?: Record<string, string> } | null;
      const model = cs?.provider_models?.[modelKind];
      const baseUrl = (b.config as { base_url?: string }).base_url;
      if (model && baseUrl) bindings.push({ id: b.id, provider: b.provider, credentialId: b.credentialId, baseUrl, model });
    }
  }
  if (!bindings.length) throw new Deny("binding_missing", `no ready binding serves model kind ${modelKind}`);
  return {
    bindings, fallback: entry.provider.fallback, reserveTokens, modelKind,
    input: body.input as TAiPlan["input"],
  };
}

/**
 * Unsealed provider keys, cached 5 s per process: a revoked credential revokes
 * its bindings (checked live above), so the cache only stretches an expiry by
 * at most 5 s.
 */
const SECRET_TTL_MS = 5_000;
const secrets = new Map<string, { value: string; until: number }>();
async function cachedSecret(credentialId: string): Promise<string> {
  const hit = secrets.get(credentialId);
  if (hit && hit.until > Date.now()) return hit.value;
  const value = await readCredentialSecret(credentialId);
  secrets.set(credentialId, { value, until: Date.now() + SECRET_TTL_MS });
  return value;
}

export async function runAi(
  plan: TAiPlan,
  audits: Array<{ action: TAuditAction; details: Record<string, unknown> }>,
): Promise<{ provider: string; bindingId: string; fallbackUsed: boolean; usage: TUsage; output: unknown }> {
  const candidates = plan.fallback === "listed" ? plan.bindings : plan.bindings.slice(0, 1);
  let lastError = "no provider available";
  // A ready binding whose credential was revoked or has expired (before the expiry sweep marks the
  // binding) is unusable, not a provider outage: when every candidate is such a binding, binding_revoked.
  let onlyUnusableBindings = true;
  for (let i = 0; i < candidates.length; i++) {
    const b = candidates[i]!;
    try {
      const apiKey = await cachedSecret(b.credentialId);
      const r = await openAiGenerate({
        baseUrl: b.baseUrl, apiKey, model: b.model, modelKind: plan.modelKind, input: plan.input,
        maxTokens: plan.reserveTokens, timeoutMs: AI_TIMEOUT_MS,
      });
      if (i > 0) {
        audits.push({ action: "capability.fallback", details: { from: candidates[0]!.provider, to: b.provider, binding_id: b.id } });
      }
      // Never settle more than was reserved: the reservation is the ceiling.
      return { provider: b.provider, bindingId: b.id, fallbackUsed: i > 0, usage: { units: Math.min(r.usage.units, plan.reserveTokens), unit: "tokens" }, output: r.output };
    } catch (err) {
      if (err instanceof ProviderError && err.kind === "rejected") throw new Deny("provider_rejected", `${b.provider}: ${err.message}`);
      const unusable = err instanceof AppError && (err.reason === "credential_revoked" || err.reason === "credential_expired");
      if (!unusable) onlyUnusableBindings = false;
      lastError = err instanceof ProviderError ? `${b.provider}: ${err.message}` : `${b.provider}: ${(err as Error).message}`;
    }
  }
  throw new Deny(onlyUnusableBindings ? "binding_revoked" : "provider_unavailable", lastError);
}
