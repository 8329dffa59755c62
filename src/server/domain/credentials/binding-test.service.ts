import { ProviderError } from "@/server/bridge/errors";
import { anthropicGenerate } from "@/server/bridge/providers/anthropic";
import { openAiGenerate } from "@/server/bridge/providers/openai";
import { writeAuditStandalone } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError, notFound } from "@/server/platform/errors";
import { iso } from "@/server/platform/time";
import type { TBindingTestResult } from "./binding-test.contract";
import { readCredentialSecret } from "./credentials.service";

/**
 * A binding's "Test" button: the cheapest real call through the binding, with
 * its credential, base URL and model, through the same provider clients and
 * egress guard as the Bridge. For ai.generate: one `generate` with
 * max_tokens 1 (a text model when the binding maps one, else an embedding of
 * one word). It is not a Bridge call: there is no product, service identity
 * or contract, no budget reservation and no usage record, so it counts
 * against no product or binding budget; the provider may bill its few tokens.
 * Each test is audited (`binding.tested`, details `test: true`, outcome,
 * latency, tokens). Other capabilities: 422 `test_not_supported`.
 */
const TEST_TIMEOUT_MS = 15_000;

export async function testBinding(caller: { userId: string; correlationId: string }, workspaceId: string, id: string): Promise<TBindingTestResult> {
  const b = await scopedDb(workspaceId).providerBinding.findUnique({ where: { id } });
  if (!b) throw notFound(`Provider binding ${id}`);
  if (b.capability !== "ai.generate") {
    throw new AppError("validation_failed", `Testing ${b.capability} bindings is not available yet (a test of email.send would send a real email); test it with a Bridge call`, {
      reason: "test_not_supported",
    });
  }
  if (b.status === "revoked" || b.status === "expired") {
    throw new AppError("conflict", `Provider binding ${id} is ${b.status}; create a new binding to test the provider`, { reason: "illegal_transition" });
  }
  const cfg = b.config as { base_url?: string; api_style?: "openai" | "anthropic" };
  const models = (b.capabilityScope as { provider_models?: Record<string, string> } | null)?.provider_models ?? {};
  const apiStyle = cfg.api_style ?? "openai";
  const modelKind: "text" | "embedding" = models.text || apiStyle === "anthropic" ? "text" : "embedding";
  const model = models[modelKind] ?? null;
  const started = new Date();
  const t0 = performance.now();
  let result: Pick<TBindingTestResult, "ok" | "answer" | "tokens" | "error" | "error_kind">;
  if (!cfg.base_url || !model) {
    result = { ok: false, answer: null, tokens: null, error: `the binding has no ${cfg.base_url ? `${modelKind} model (capability_scope.provider_models)` : "base URL (provider_config.base_url)"}`, error_kind: "rejected" };
  } else {
    try {
      const apiKey = await readCredentialSecret(b.credentialId);
      const call = { baseUrl: cfg.base_url, apiKey, model, modelKind, maxTokens: 1, timeoutMs: TEST_TIMEOUT_MS,
        input: modelKind === "text" ? { messages: [{ role: "user", content: "Reply with OK." }] } : { text: "ok" } };
      const r = apiStyle === "anthropic" ? await anthropicGenerate(call) : await openAiGenerate(call);
      const out = r.output as { text?: string; embedding?: number[] };
      result = {
        ok: true, error: null, error_kind: null, tokens: r.tokens,
        answer: out.embedding ? `an embedding of ${out.embedding.length} numbers` : (out.text ?? ""),
      };
    } catch (err) {
      result = { ok: false, answer: null, tokens: null, ...describe(err) };
    }
  }
  const durationMs = Math.round(performance.now() - t0);
  await writeAuditStandalone({
    workspaceId, actor: { kind: "user", id: caller.userId }, action: "binding.tested", target: { kind: "provider_binding", id: b.id },
    correlationId: caller.correlationId,
    details: { test: true, provider: b.provider, model, ok: result.ok, duration_ms: durationMs, tokens: result.tokens, error: result.error },
  });
  return {
    binding_id: b.id, capability: b.capability, provider: b.provider, action: "generate", model, duration_ms: durationMs,
    tested_at: iso(started), ...result,
  };
}

function describe(err: unknown): { error: string; error_kind: TBindingTestResult["error_kind"] } {
  if (err instanceof ProviderError) {
    return err.kind === "rejected"
      ? { error: `the provider refused the request: ${err.message} (check the API key and the model name)`, error_kind: "rejected" }
      : { error: `the provider did not answer usefully: ${err.message}`, error_kind: "unavailable" };
  }
  if (err instanceof AppError && (err.reason === "credential_revoked" || err.reason === "credential_expired")) {
    return { error: err.message, error_kind: "credential" };
  }
  throw err;
}
