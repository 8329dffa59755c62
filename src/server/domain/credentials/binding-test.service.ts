import { ProviderError } from "@/server/bridge/providers/types";
import { anthropicGenerate } from "@/server/bridge/providers/anthropic";
import { openAiGenerate } from "@/server/bridge/providers/openai";
import { s3Probe } from "@/server/bridge/providers/s3";
import { smtpCheck } from "@/server/bridge/providers/smtp";
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
 * latency, tokens).
 * email.send: an SMTP check (connect, EHLO, STARTTLS when offered, AUTH when
 * offered, QUIT): no mail is sent. storage.object: PUT, GET and DELETE of a
 * 16-byte probe object under `_capstan-test/` in the binding's bucket.
 * Other capabilities: 422 `test_not_supported`.
 */
const TEST_TIMEOUT_MS = 15_000;
const TESTABLE = new Set(["ai.generate", "email.send", "storage.object"]);

export async function testBinding(
  caller: { userId: string; correlationId: string },
  workspaceId: string,
  id: string,
): Promise<TBindingTestResult> {
  const b = await scopedDb(workspaceId).providerBinding.findUnique({ where: { id } });
  if (!b) throw notFound(`Provider binding ${id}`);
  if (!TESTABLE.has(b.capability)) {
    throw new AppError(
      "validation_failed",
      `Testing ${b.capability} bindings is not available; test it with a Bridge call`,
      { reason: "test_not_supported" },
    );
  }
  if (b.status === "revoked" || b.status === "expired") {
    throw new AppError("conflict", `Provider binding ${id} is ${b.status}; create a new binding to test the provider`, {
      reason: "illegal_transition",
    });
  }
  if (b.capability !== "ai.generate") {
    const started = new Date();
    const t0 = performance.now();
    const run = b.capability === "email.send" ? testSmtp : testS3;
    let result: Pick<TBindingTestResult, "ok" | "answer" | "error" | "error_kind">;
    try {
      result = { ok: true, error: null, error_kind: null, answer: await run(b) };
    } catch (err) {
      result = {
        ok: false,
        answer: null,
        ...describe(
          err,
          b.capability === "email.send"
            ? "the host, port, TLS setting and the user and password"
            : "the endpoint, bucket, region and the access key",
        ),
      };
    }
    const durationMs = Math.round(performance.now() - t0);
    await audit(caller, workspaceId, b, {
      model: null,
      ok: result.ok,
      duration_ms: durationMs,
      tokens: null,
      error: result.error,
    });
    return {
      binding_id: b.id,
      capability: b.capability,
      provider: b.provider,
      action: b.capability === "email.send" ? "smtp_check" : "probe",
      model: null,
      duration_ms: durationMs,
      tested_at: iso(started),
      tokens: null,
      ...result,
    };
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
    result = {
      ok: false,
      answer: null,
      tokens: null,
      error: `the binding has no ${cfg.base_url ? `${modelKind} model (capability_scope.provider_models)` : "base URL (provider_config.base_url)"}`,
      error_kind: "rejected",
    };
  } else {
    try {
      const apiKey = await readCredentialSecret(b.credentialId);
      const call = {
        baseUrl: cfg.base_url,
        apiKey,
        model,
        modelKind,
        maxTokens: 1,
        timeoutMs: TEST_TIMEOUT_MS,
        input: modelKind === "text" ? { messages: [{ role: "user", content: "Reply with OK." }] } : { text: "ok" },
      };
      const r = apiStyle === "anthropic" ? await anthropicGenerate(call) : await openAiGenerate(call);
      const out = r.output as { text?: string; embedding?: number[] };
      result = {
        ok: true,
        error: null,
        error_kind: null,
        tokens: r.tokens,
        answer: out.embedding ? `an embedding of ${out.embedding.length} numbers` : (out.text ?? ""),
      };
    } catch (err) {
      result = { ok: false, answer: null, tokens: null, ...describe(err) };
    }
  }
  const durationMs = Math.round(performance.now() - t0);
  await audit(caller, workspaceId, b, {
    model,
    ok: result.ok,
    duration_ms: durationMs,
    tokens: result.tokens,
    error: result.error,
  });
  return {
    binding_id: b.id,
    capability: b.capability,
    provider: b.provider,
    action: "generate",
    model,
    duration_ms: durationMs,
    tested_at: iso(started),
    ...result,
  };
}

type TBinding = { id: string; provider: string; credentialId: string; config: unknown; capabilityScope: unknown };

function audit(
  caller: { userId: string; correlationId: string },
  workspaceId: string,
  b: TBinding,
  details: Record<string, unknown>,
) {
  return writeAuditStandalone({
    workspaceId,
    actor: { kind: "user", id: caller.userId },
    action: "binding.tested",
    target: { kind: "provider_binding", id: b.id },
    correlationId: caller.correlationId,
    details: { test: true, provider: b.provider, ...details },
  });
}

/** email.send: connect, EHLO, sign in when offered; no mail is sent. */
async function testSmtp(b: TBinding): Promise<string> {
  const cfg = b.config as { host?: string; port?: number; secure?: boolean };
  if (!cfg.host) throw new ProviderError("rejected", "the binding has no SMTP host (provider_config.host)");
  const port = cfg.port ?? 587;
  const secret = await readCredentialSecret(b.credentialId);
  const colon = secret.indexOf(":");
  // As a send (src/server/bridge/email.ts): `user:password`, else the password of the from address.
  const from = (b.capabilityScope as { scope?: { from_addresses?: string[] } } | null)?.scope?.from_addresses?.[0];
  const auth =
    colon > 0 ? { user: secret.slice(0, colon), pass: secret.slice(colon + 1) } : { user: from ?? "", pass: secret };
  const r = await smtpCheck({ host: cfg.host, port, secure: cfg.secure ?? false, auth });
  const tls = { tls: "over TLS", starttls: "after STARTTLS", none: "without TLS" }[r.tls];
  const signIn = r.authenticated
    ? `accepted the sign-in as ${auth.user}`
    : "offers no AUTH, so the credential was not checked";
  return `The SMTP server ${cfg.host}:${port} answered EHLO ${tls} ("${r.ehlo.slice(0, 120)}") and ${signIn}. No mail was sent.`;
}

/** storage.object: put, get and delete a 16-byte probe object under a reserved prefix. */
async function testS3(b: TBinding): Promise<string> {
  const cfg = b.config as { endpoint?: string; bucket?: string; region?: string };
  if (!cfg.endpoint || !cfg.bucket)
    throw new ProviderError(
      "rejected",
      "the binding has no S3 endpoint and bucket (provider_config.endpoint, provider_config.bucket)",
    );
  const secret = await readCredentialSecret(b.credentialId);
  const r = await s3Probe({ endpoint: cfg.endpoint, bucket: cfg.bucket, region: cfg.region ?? "us-east-1", secret });
  return `Wrote, read back and deleted a 16-byte probe object ${cfg.bucket}/${r.key} (${r.steps.join(", ")}).`;
}

function describe(
  err: unknown,
  check = "the API key and the model name",
): { error: string; error_kind: TBindingTestResult["error_kind"] } {
  if (err instanceof ProviderError) {
    return err.kind === "rejected"
      ? { error: `the provider refused the request: ${err.message} (check ${check})`, error_kind: "rejected" }
      : { error: `the provider did not answer usefully: ${err.message}`, error_kind: "unavailable" };
  }
  if (err instanceof AppError && (err.reason === "credential_revoked" || err.reason === "credential_expired")) {
    return { error: err.message, error_kind: "credential" };
  }
  throw err;
}
