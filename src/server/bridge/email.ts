import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import type { TUsage } from "./bridge.contract";
import { bindingSecret, candidateBindings, withFallback, type TAudits } from "./bindings";
import { Deny } from "./errors";
import { smtpSend } from "./providers/smtp";
import { fieldText } from "@/server/platform/body";

/**
 * email.send: contract scope (from address, recipient domains, recipient
 * count, message size), then an SMTP binding (prefer first, allow-list only,
 * fallback when `listed`). One call = one unit of provider_call. The
 * credential secret is the SMTP password, or `username:password`; without a
 * username the from address authenticates.
 */
type TEmailScope = {
  from_addresses: string[];
  recipient_domains: string[];
  max_recipients: number;
  max_message_bytes: number;
};
type TSmtpBinding = { id: string; provider: string; credentialId: string; host: string; port: number; secure: boolean };

export type TEmailPlan = {
  bindings: TSmtpBinding[];
  fallback: "none" | "listed";
  message: { from: string; recipients: string[]; subject: string; text?: string; html?: string };
};

export function messageBytes(body: Record<string, unknown>): number {
  return ["subject", "text", "html"].reduce((n, k) => n + Buffer.byteLength(fieldText(body[k])), 0);
}

/** The first recipient whose domain is not in `domains` (`*` allows any), or undefined. */
function outsideDomains(domains: string[], recipients: string[]): string | undefined {
  if (domains.includes("*")) return undefined;
  return recipients.find((r) => !domains.includes(r.slice(r.lastIndexOf("@") + 1)));
}

export async function planEmailCall(
  workspaceId: string,
  entry: TCapabilityEntry,
  body: Record<string, unknown>,
): Promise<TEmailPlan> {
  const scope = entry.scope as TEmailScope;
  const from = body.from as string;
  const recipients = body.recipients as string[];
  if (!scope.from_addresses.includes(from))
    throw new Deny("outside_contract", `from address ${from} is not in the contract`);
  if (recipients.length > scope.max_recipients) {
    throw new Deny("outside_contract", `${recipients.length} recipients; the contract allows ${scope.max_recipients}`);
  }
  const outside = outsideDomains(scope.recipient_domains, recipients);
  if (outside) throw new Deny("outside_contract", `recipient ${outside} is outside the contract's recipient domains`);
  const bytes = messageBytes(body);
  if (bytes > scope.max_message_bytes)
    throw new Deny("outside_contract", `the message is ${bytes} bytes; the contract allows ${scope.max_message_bytes}`);

  // The binding's own email.send scope (set by the owner) limits the call further.
  const ready = await candidateBindings(workspaceId, entry, "send", (b) => {
    const bs = (b.capabilityScope as { scope?: TEmailScope } | null)?.scope;
    if (!bs) return null;
    if (!bs.from_addresses.includes(from)) return `from address ${from} is not in its scope`;
    if (recipients.length > bs.max_recipients)
      return `${recipients.length} recipients exceed its max_recipients ${bs.max_recipients}`;
    const outside = outsideDomains(bs.recipient_domains, recipients);
    if (outside) return `recipient ${outside} is outside its recipient domains`;
    if (bytes > bs.max_message_bytes) return `the message is ${bytes} bytes; it allows ${bs.max_message_bytes}`;
    return null;
  });
  const bindings: TSmtpBinding[] = [];
  for (const b of ready) {
    const cfg = b.config as { host?: string; port?: number; secure?: boolean };
    if (cfg.host)
      bindings.push({
        id: b.id,
        provider: b.provider,
        credentialId: b.credentialId,
        host: cfg.host,
        port: cfg.port ?? 587,
        secure: cfg.secure ?? false,
      });
  }
  if (!bindings.length)
    throw new Deny("binding_missing", "no ready email.send binding has an SMTP host (provider_config.host)");
  return {
    bindings,
    fallback: entry.provider.fallback,
    message: {
      from,
      recipients,
      subject: body.subject as string,
      text: body.text as string | undefined,
      html: body.html as string | undefined,
    },
  };
}

export async function runEmail(
  plan: TEmailPlan,
  audits: TAudits,
): Promise<{ provider: string; bindingId: string; fallbackUsed: boolean; usage: TUsage; output: unknown }> {
  const { result, binding, fallbackUsed } = await withFallback(plan.bindings, plan.fallback, audits, async (b) => {
    const secret = await bindingSecret(b.credentialId);
    const colon = secret.indexOf(":");
    const auth =
      colon > 0
        ? { user: secret.slice(0, colon), pass: secret.slice(colon + 1) }
        : { user: plan.message.from, pass: secret };
    return smtpSend({ host: b.host, port: b.port, secure: b.secure, auth }, plan.message);
  });
  return {
    provider: binding.provider,
    bindingId: binding.id,
    fallbackUsed,
    usage: { units: 1, unit: "calls" },
    output: result,
  };
}
