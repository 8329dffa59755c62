import { createHash } from "node:crypto";
import { isIP } from "node:net";
import nodemailer from "nodemailer";
import { egressBlocked, resolveEgress } from "@/server/platform/egress";
import { ProviderError } from "../errors";

/**
 * SMTP via nodemailer, one pooled transport per server + user (keep-alive).
 * 5xx answers and authentication failures are the provider rejecting the
 * message (provider_rejected); connection problems and 4xx are transient
 * (provider_unavailable).
 *
 * Egress: nodemailer resolves hosts on its own, so each send resolves the
 * host through the egress guard first (a host with any non-public address
 * is refused: provider_unavailable) and the transport connects to the
 * checked address, with the host name kept for TLS (SNI and certificate).
 */
type TSmtpTarget = { host: string; port: number; secure: boolean; auth: { user: string; pass: string } };
type TMessage = { from: string; recipients: string[]; subject: string; text?: string; html?: string };

const transports = new Map<string, nodemailer.Transporter>();

/** One pooled transport per target: keyed by a hash of everything that identifies it, the password included. */
function transport(t: TSmtpTarget, address: string): nodemailer.Transporter {
  const key = createHash("sha256").update(JSON.stringify([address, t.host, t.port, t.secure, t.auth.user, t.auth.pass])).digest("hex");
  let tr = transports.get(key);
  if (!tr) {
    tr = nodemailer.createTransport({
      host: address, port: t.port, secure: t.secure, auth: t.auth, pool: true, maxConnections: 5,
      ...(isIP(t.host) ? {} : { servername: t.host }),
      connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000,
      // Loopback test servers have no certificate; real servers are verified.
      tls: { rejectUnauthorized: !["127.0.0.1", "localhost", "::1"].includes(t.host) },
    });
    transports.set(key, tr);
  }
  return tr;
}

export async function smtpSend(t: TSmtpTarget, m: TMessage): Promise<{ message_id: string; accepted: string[]; rejected: string[] }> {
  try {
    const { address } = (await resolveEgress("provider", t.host))[0]!;
    const info = await transport(t, address).sendMail({ from: m.from, to: m.recipients, subject: m.subject, text: m.text, html: m.html });
    return {
      message_id: String(info.messageId ?? ""),
      accepted: (info.accepted ?? []).map(String),
      rejected: (info.rejected ?? []).map(String),
    };
  } catch (err) {
    const blocked = egressBlocked(err);
    if (blocked) throw new ProviderError("unavailable", blocked.message);
    const e = err as { code?: string; responseCode?: number; message?: string };
    if (e.code === "EAUTH" || (e.responseCode !== undefined && e.responseCode >= 500)) {
      throw new ProviderError("rejected", `SMTP ${e.responseCode ?? e.code}`);
    }
    throw new ProviderError("unavailable", `SMTP ${e.code ?? "error"}`);
  }
}
