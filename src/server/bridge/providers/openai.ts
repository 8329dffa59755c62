import { request } from "undici";
import { deadline } from "@/server/platform/deadline";
import { egressAgent, egressBlocked } from "@/server/platform/egress";
import { ProviderError, type TUsage } from "./types";

/**
 * OpenAI-compatible HTTP (OpenAI, Ollama, vLLM, LiteLLM...): chat completions
 * and embeddings, with undici's request through the egress guard's provider
 * pool (keep-alive per origin; a host resolving to a non-public address is
 * refused at connect time: "unavailable"). Errors: see postJson.
 */
export { ProviderError };

/**
 * POST `body` as JSON to `url` through the provider pool and answer the parsed
 * 2xx body. 4xx -> ProviderError("rejected"); 429, 408, 3xx (redirects are not
 * followed: they are an outage for this call, so a listed fallback may serve
 * it), 5xx, invalid JSON, connection failures -> "unavailable".
 */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  timeoutMs: number,
): Promise<unknown> {
  let res: Awaited<ReturnType<typeof request>>;
  const limit = deadline(timeoutMs);
  try {
    res = await request(url, {
      method: "POST",
      dispatcher: egressAgent("provider"),
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal: limit.signal,
    });
  } catch (err) {
    limit.done();
    const blocked = egressBlocked(err);
    if (blocked) throw new ProviderError("unavailable", blocked.message);
    throw new ProviderError("unavailable", limit.expired() ? "provider timed out" : "provider unreachable");
  }
  const status = res.statusCode;
  if (status < 200 || status >= 300) {
    await res.body.dump().catch(() => undefined); // frees the pooled connection
    limit.done();
    const rejected = status >= 400 && status < 500 && status !== 429 && status !== 408;
    throw new ProviderError(
      rejected ? "rejected" : "unavailable",
      status === 529 ? "provider overloaded (529)" : `provider answered ${status}`,
    );
  }
  // The deadline covers the body too: a provider that sends headers and then stalls times out the same way.
  try {
    return await res.body.json();
  } catch {
    throw new ProviderError(
      "unavailable",
      limit.expired() ? "provider timed out" : "provider answered with invalid JSON",
    );
  } finally {
    limit.done();
  }
}

export type TAiCall = {
  baseUrl: string;
  apiKey: string;
  model: string;
  modelKind: "text" | "embedding";
  input: { messages: Array<{ role: string; content: string }> } | { text: string };
  maxTokens: number;
  timeoutMs: number;
};

export async function openAiGenerate(
  c: TAiCall,
): Promise<{ output: unknown; usage: TUsage; tokens: { input: number; output: number } }> {
  const base = c.baseUrl.replace(/\/+$/, "");
  const text = "text" in c.input ? c.input.text : undefined;
  const messages = "messages" in c.input ? c.input.messages : [{ role: "user", content: text! }];
  const [path, body] =
    c.modelKind === "embedding"
      ? ["/embeddings", { model: c.model, input: text ?? messages.map((m) => m.content).join("\n") }]
      : ["/chat/completions", { model: c.model, messages, max_tokens: c.maxTokens }];
  const json = (await postJson(base + path, { authorization: `Bearer ${c.apiKey}` }, body, c.timeoutMs)) as {
    choices?: Array<{ message?: { content?: string } }>;
    data?: Array<{ embedding?: number[] }>;
    usage?: { total_tokens?: number; prompt_tokens?: number; completion_tokens?: number };
  };
  const tokens = json.usage?.total_tokens ?? (json.usage?.prompt_tokens ?? 0) + (json.usage?.completion_tokens ?? 0);
  const output =
    c.modelKind === "embedding"
      ? { embedding: json.data?.[0]?.embedding ?? [] }
      : { text: json.choices?.[0]?.message?.content ?? "" };
  // The input/output split prices the call (rate cards price them apart); an embedding has input only.
  const input = Math.min(tokens, json.usage?.prompt_tokens ?? tokens);
  return { output, usage: { units: tokens, unit: "tokens" }, tokens: { input, output: tokens - input } };
}
