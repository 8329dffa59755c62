import { readCredentialSecret } from "@/server/domain/credentials/credentials.service";
import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import type { TAuditAction } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { AppError } from "@/server/platform/errors";
import type { TUsage } from "./bridge.contract";
import { Deny } from "./pipeline";
import { ProviderError } from "./providers/openai";
import { smtpSend } from "./providers/smtp";

/**
 * email.send: contract scope (from address, recipient domains, recipient
 * count, message size), then an SMTP binding (prefer first, allow-list only,
 * fallback when `listed`). One call = one unit of provider_call. The
 * credential secret is the SMTP password, or `username:password`; without a
 * username the from address authenticates.
 */
type TEmailScope = { from_addresses: string[]; recipient_domains: string[]; max_recipients: number; max_message_bytes: number };
type TSmtpBinding = { id: string; provider: string; credentialId: string; host: string; port: number; secure: boolean };

export type TEmailPlan = {
  bindings: TSmtpBinding[];
  fallback: "none" | "listed";
  message: { from: string; recipients: string[]; subject: string; text?: string; html?: string };
};

export function messageBytes(body: Record<string, unknown>): number {
  return ["subject", "text", "html"].reduce((n, k) => n + Buffer.byteLength(String(body[k] ?? "")), 0);
}

export async function planEmailCall(workspaceId: string, entry: TCapabilityEntry, body: Record<string, unknown>): Promise<TEmailPlan> {
  const scope = entry.scope as TEmailScope;
  const from = body.from as string;
  const recipients = body.recipients as string[];
  if (!scope.from_addresses.includes(from)) throw new Deny("outside_contract", `from address ${from} is not in the contract`);
  if (recipients.length > scope.max_recipients) {
    throw new Deny("outside_contract", `${recipients.length} recipients; the contract allows ${scope.max_recipients}`);
  }
  if (!scope.recipient_domains.includes("*")) {
    const outside = recipients.find((r) => !scope.recipient_domains.includes(r.slice(r.lastIndexOf("@") + 1)));
    if (outside) throw new Deny("outside_contract", `recipient ${outside} is outside the contract's recipient domains`);
  }
  const bytes = messageBytes(body);
  if (bytes > scope.max_message_bytes) throw new Deny("outside_contract", `the message is ${bytes} bytes; the contract allows ${scope.max_message_bytes}`);

  const allow = entry.provider.allow;
  const order = [...new Set([...(entry.provider.prefer && allow.includes(entry.provider.prefer) ? [entry.provider.prefer] : []), ...allow])];
  const rows = await db().providerBinding.findMany({
    where: { workspaceId, capability: "email.send", provider: { in: allow } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  const ready = rows.filter((b) => b.status === "ready");
  if (!ready.length) {
    if (rows.length) throw new Deny("binding_revoked", "the workspace's email.send bindings for the allowed providers are revoked or expired");
    throw new Deny("binding_missing", `no email.send binding for an allowed provider (${allow.join(", ")})`);
  }
  const bindings: TSmtpBinding[] = [];
  for (const provider of order) {
    for (const b of ready.filter((r) => r.provider === provider)) {
      const cfg = b.config as { host?: string; port?: number; secure?: boolean };
      if (cfg.host) bindings.push({ id: b.id, provider, credentialId: b.credentialId, host: cfg.host, port: cfg.port ?? 587, secure: cfg.secure ?? false });
    }
  }
  if (!bindings.length) throw new Deny("binding_missing", "no ready email.send binding has an SMTP host (provider_config.host)");
  return {
    bindings, fallback: entry.provider.fallback,
    message: { from, recipients, subject: body.subject as string, text: body.text as string | undefined, html: body.html as string | undefined },
  };
}

export async function runEmail(
  plan: TEmailPlan,
  audits: Array<{ action: TAuditAction; details: Record<string, unknown> }>,
): Promise<{ provider: string; bindingId: string; fallbackUsed: boolean; usage: TUsage; output: unknown }> {
  const candidates = plan.fallback === "listed" ? plan.bindings : plan.bindings.slice(0, 1);
  let lastError = "no provider available";
  let onlyUnusable = true;
  for (let i = 0; i < candidates.length; i++) {
    const b = candidates[i]!;
    try {
      const secret = await readCredentialSecret(b.credentialId);
      const colon = secret.indexOf(":");
      const auth = colon > 0 ? { user: secret.slice(0, colon), pass: secret.slice(colon + 1) } : { user: plan.message.from, pass: secret };
      const sent = await smtpSend({ host: b.host, port: b.port, secure: b.secure, auth }, plan.message);
      if (i > 0) audits.push({ action: "capability.fallback", details: { from: candidates[0]!.provider, to: b.provider, binding_id: b.id } });
      return { provider: b.provider, bindingId: b.id, fallbackUsed: i > 0, usage: { units: 1, unit: "calls" }, output: sent };
    } catch (err) {
      if (err instanceof ProviderError && err.kind === "rejected") throw new Deny("provider_rejected", `${b.provider}: ${err.message}`);
      const unusable = err instanceof AppError && (err.reason === "credential_revoked" || err.reason === "credential_expired");
      if (!unusable) onlyUnusable = false;
      lastError = `${b.provider}: ${(err as Error).message}`;
    }
  }
  throw new Deny(onlyUnusable ? "binding_revoked" : "provider_unavailable", lastError);
}
