import nodemailer from "nodemailer";
import { ProviderError } from "../errors";

/**
 * SMTP via nodemailer, one pooled transport per server + user (keep-alive).
 * 5xx answers and authentication failures are the provider rejecting the
 * message (provider_rejected); connection problems and 4xx are transient
 * (provider_unavailable).
 */
type TSmtpTarget = { host: string; port: number; secure: boolean; auth: { user: string; pass: string } };
type TMessage = { from: string; recipients: string[]; subject: string; text?: string; html?: string };

const transports = new Map<string, nodemailer.Transporter>();

function transport(t: TSmtpTarget): nodemailer.Transporter {
  const key = `${t.host}:${t.port}:${t.secure}:${t.auth.user}:${t.auth.pass.length}`;
  let tr = transports.get(key);
  if (!tr) {
    tr = nodemailer.createTransport({
      host: t.host, port: t.port, secure: t.secure, auth: t.auth, pool: true, maxConnections: 5,
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
    const info = await transport(t).sendMail({ from: m.from, to: m.recipients, subject: m.subject, text: m.text, html: m.html });
    return {
      message_id: String(info.messageId ?? ""),
      accepted: (info.accepted ?? []).map(String),
      rejected: (info.rejected ?? []).map(String),
    };
  } catch (err) {
    const e = err as { code?: string; responseCode?: number; message?: string };
    if (e.code === "EAUTH" || (e.responseCode !== undefined && e.responseCode >= 500)) {
      throw new ProviderError("rejected", `SMTP ${e.responseCode ?? e.code}`);
    }
    throw new ProviderError("unavailable", `SMTP ${e.code ?? "error"}`);
  }
}
