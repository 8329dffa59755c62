import type { TUsage } from "../bridge.contract";
import { ProviderError } from "../errors";

/**
 * OpenAI-compatible HTTP (OpenAI, Ollama, vLLM, LiteLLM...): chat completions
 * and embeddings. Node's fetch keeps connections alive per origin.
 * 4xx -> ProviderError("rejected"); network errors, timeouts, 5xx -> "unavailable".
 */
export { ProviderError };

export type TAiCall = {
  baseUrl: string;
  apiKey: string;
  model: string;
  modelKind: "text" | "embedding";
  input: { messages: Array<{ role: string; content: string }> } | { text: string };
  maxTokens: number;
  timeoutMs: number;
};

export async function openAiGenerate(c: TAiCall): Promise<{ output: unknown; usage: TUsage }> {
  const base = c.baseUrl.replace(/\/+$/, "");
  const text = "text" in c.input ? c.input.text : undefined;
  const messages = "messages" in c.input ? c.input.messages : [{ role: "user", content: text! }];
  const [path, body] =
    c.modelKind === "embedding"
      ? ["/embeddings", { model: c.model, input: text ?? messages.map((m) => m.content).join("\n") }]
      : ["/chat/completions", { model: c.model, messages, max_tokens: c.maxTokens }];
  let res: Response;
  try {
    res = await fetch(base + path, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${c.apiKey}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(c.timeoutMs),
      redirect: "error",
    });
  } catch (err) {
    throw new ProviderError("unavailable", (err as Error).name === "TimeoutError" ? "provider timed out" : "provider unreachable");
  }
  // 429 (rate limited) and 408 are transient: an outage for this call, so a listed fallback may serve it.
  if (res.status >= 500 || res.status === 429 || res.status === 408) throw new ProviderError("unavailable", `provider answered ${res.status}`);
  if (res.status >= 400) throw new ProviderError("rejected", `provider answered ${res.status}`);
  let json: {
    choices?: Array<{ message?: { content?: string } }>;
    data?: Array<{ embedding?: number[] }>;
    usage?: { total_tokens?: number; prompt_tokens?: number; completion_tokens?: number };
  };
  try {
    json = await res.json();
  } catch {
    throw new ProviderError("unavailable", "provider answered with invalid JSON");
  }
  const tokens = json.usage?.total_tokens ?? (json.usage?.prompt_tokens ?? 0) + (json.usage?.completion_tokens ?? 0);
  const output =
    c.modelKind === "embedding"
      ? { embedding: json.data?.[0]?.embedding ?? [] }
      : { text: json.choices?.[0]?.message?.content ?? "" };
  return { output, usage: { units: tokens, unit: "tokens" } };
}
