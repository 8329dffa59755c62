import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import type { TUsage } from "./bridge.contract";
import { bindingSecret, candidateBindings, withFallback, type TAudits } from "./bindings";
import { Deny } from "./errors";
import { anthropicGenerate } from "./providers/anthropic";
import { openAiGenerate, type TAiCall } from "./providers/openai";

/**
 * ai.generate: contract scope checks, binding choice (prefer first, then the
 * allow-list order; never outside it) and the provider call with fallback to
 * the next allowed provider only when the contract says `fallback: listed`.
 */
const AI_TIMEOUT_MS = 30_000;

/** What a rate card prices (docs/decisions.md "Billing"): the provider and model that served the call, its tokens. */
export type TPricedUsage = { provider: string; model: string; input: number; output: number };

type TAiScope = { models: string[]; max_tokens_per_call: number };
/** provider_config.api_style: the wire protocol of the binding's base_url. */
type TApiStyle = "openai" | "anthropic";
type TBindingChoice = {
  id: string;
  provider: string;
  credentialId: string;
  baseUrl: string;
  model: string;
  apiStyle: TApiStyle;
};

export type TAiPlan = {
  bindings: TBindingChoice[];
  fallback: "none" | "listed";
  reserveTokens: number;
  /** Index of the binding that holds the token reservation (the ones before it had no budget left). */
  startAt?: number;
  modelKind: "text" | "embedding";
  input: { messages: Array<{ role: string; content: string }> } | { text: string };
};

export async function planAiCall(
  workspaceId: string,
  entry: TCapabilityEntry,
  body: Record<string, unknown>,
): Promise<TAiPlan> {
  const scope = entry.scope as TAiScope;
  const modelKind = body.model_kind as "text" | "embedding";
  if (!scope.models.includes(modelKind))
    throw new Deny("outside_contract", `model kind ${modelKind} is not in the contract`);
  const asked = body.max_tokens as number | undefined;
  if (asked !== undefined && asked > scope.max_tokens_per_call) {
    throw new Deny(
      "outside_contract",
      `max_tokens ${asked} exceeds the contract's max_tokens_per_call ${scope.max_tokens_per_call}`,
    );
  }

  // The binding's own scope (set by the owner) limits the call further: its model kinds, and
  // max_tokens when asked for explicitly. Without an explicit max_tokens the call gets the
  // smallest cap of the candidates, so whichever binding serves it stays within its scope.
  const ready = await candidateBindings(workspaceId, entry, "generate", (b) => {
    const bs = (b.capabilityScope as { scope?: TAiScope } | null)?.scope;
    if (!bs) return null;
    if (!bs.models.includes(modelKind)) return `model kind ${modelKind} is not in its scope`;
    if (asked !== undefined && asked > bs.max_tokens_per_call)
      return `max_tokens ${asked} exceeds its max_tokens_per_call ${bs.max_tokens_per_call}`;
    return null;
  });
  const bindings: TBindingChoice[] = [];
  let noEmbeddings = 0; // anthropic-style bindings asked for an embedding: the Messages API has none
  let reserveTokens = Math.min(scope.max_tokens_per_call, asked ?? scope.max_tokens_per_call);
  for (const b of ready) {
    const cs = b.capabilityScope as { provider_models?: Record<string, string>; scope?: TAiScope } | null;
    const model = cs?.provider_models?.[modelKind];
    const baseUrl = (b.config as { base_url?: string }).base_url;
    const apiStyle = (b.config as { api_style?: TApiStyle }).api_style ?? "openai";
    if (apiStyle === "anthropic" && modelKind === "embedding") {
      noEmbeddings++;
      continue;
    }
    if (!model || !baseUrl) continue;
    bindings.push({ id: b.id, provider: b.provider, credentialId: b.credentialId, baseUrl, model, apiStyle });
    if (cs?.scope) reserveTokens = Math.min(reserveTokens, cs.scope.max_tokens_per_call);
  }
  if (!bindings.length) {
    const why = noEmbeddings
      ? ` (skipped ${noEmbeddings} anthropic-style binding(s): the Anthropic Messages API has no embeddings)`
      : "";
    throw new Deny("binding_missing", `no ready binding serves model kind ${modelKind}${why}`);
  }
  return {
    bindings,
    fallback: entry.provider.fallback,
    reserveTokens,
    modelKind,
    input: body.input as TAiPlan["input"],
  };
}

function generate(apiStyle: TApiStyle, call: TAiCall): ReturnType<typeof openAiGenerate> {
  return apiStyle === "anthropic" ? anthropicGenerate(call) : openAiGenerate(call);
}

export async function runAi(
  plan: TAiPlan,
  audits: TAudits,
): Promise<{
  provider: string;
  bindingId: string;
  fallbackUsed: boolean;
  usage: TUsage;
  output: unknown;
  priced: TPricedUsage;
}> {
  const startAt = Math.max(0, plan.startAt ?? 0);
  const served = await withFallback(plan.bindings.slice(startAt), plan.fallback, audits, async (b) =>
    generate(b.apiStyle, {
      baseUrl: b.baseUrl,
      apiKey: await bindingSecret(b.credentialId),
      model: b.model,
      modelKind: plan.modelKind,
      input: plan.input,
      maxTokens: plan.reserveTokens,
      timeoutMs: AI_TIMEOUT_MS,
    }),
  );
  const { result, binding } = served;
  if (startAt > 0 && !served.fallbackUsed) {
    audits.push({
      action: "capability.fallback",
      details: {
        from: plan.bindings[0]!.provider,
        to: binding.provider,
        binding_id: binding.id,
        reason: "binding_budget_exhausted",
      },
    });
  }
  const fallbackUsed = served.fallbackUsed || startAt > 0;
  // Never settle more than was reserved: the reservation is the ceiling.
  const units = Math.min(result.usage.units, plan.reserveTokens);
  // Priced on the same capped units: input first, then output, never more than settled.
  const input = Math.min(result.tokens.input, units);
  const priced = {
    provider: binding.provider,
    model: binding.model,
    input,
    output: Math.min(result.tokens.output, units - input),
  };
  return {
    provider: binding.provider,
    bindingId: binding.id,
    fallbackUsed,
    usage: { units, unit: "tokens" },
    output: result.output,
    priced,
  };
}
