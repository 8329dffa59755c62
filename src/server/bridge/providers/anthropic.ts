import type { TUsage } from "./types";
import { postJson, ProviderError, type TAiCall } from "./openai";

/**
 * Anthropic Messages API (binding provider_config.api_style "anthropic"):
 * POST {base_url}/messages with `x-api-key` and `anthropic-version`. Text only:
 * Anthropic has no embeddings API, so planAiCall never picks an anthropic-style
 * binding for model_kind embedding; the guard below only keeps such a call from
 * ever being sent. System messages go to the top-level `system` string (the
 * Messages API has no system role). Same transport (postJson: the egress
 * guard's provider pool) and error mapping as openai.ts: network errors,
 * timeouts, egress refusals, 3xx, 5xx (529 overloaded included) and invalid
 * JSON -> ProviderError("unavailable"); 4xx -> "rejected".
 */
export const ANTHROPIC_VERSION = "2023-06-01";

type TAnthropicAnswer = {
  content?: Array<{ type?: string; text?: string }>;
  usage?: { input_tokens?: number; output_tokens?: number };
};

export async function anthropicGenerate(
  c: TAiCall,
): Promise<{ output: unknown; usage: TUsage; tokens: { input: number; output: number } }> {
  if (c.modelKind === "embedding") throw new ProviderError("rejected", "the Anthropic Messages API has no embeddings");
  const base = c.baseUrl.replace(/\/+$/, "");
  const all = "messages" in c.input ? c.input.messages : [{ role: "user", content: c.input.text }];
  const system = all.filter((m) => m.role === "system").map((m) => m.content);
  const messages = all.filter((m) => m.role !== "system").map((m) => ({ role: m.role, content: m.content }));
  // Nothing but system messages: the API requires at least one message, so do not send a request bound to fail.
  if (!messages.length)
    throw new ProviderError("rejected", "the Anthropic Messages API needs at least one user or assistant message");
  const body = {
    model: c.model,
    max_tokens: c.maxTokens,
    messages,
    ...(system.length ? { system: system.join("\n\n") } : {}),
  };
  const json = (await postJson(
    `${base}/messages`,
    { "x-api-key": c.apiKey, "anthropic-version": ANTHROPIC_VERSION },
    body,
    c.timeoutMs,
  )) as TAnthropicAnswer;
  if (!json || typeof json !== "object") throw new ProviderError("unavailable", "provider answered with invalid JSON");
  const text = (json.content ?? [])
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join("");
  const tokens = (json.usage?.input_tokens ?? 0) + (json.usage?.output_tokens ?? 0);
  return {
    output: { text },
    usage: { units: tokens, unit: "tokens" },
    tokens: { input: json.usage?.input_tokens ?? 0, output: json.usage?.output_tokens ?? 0 },
  };
}
