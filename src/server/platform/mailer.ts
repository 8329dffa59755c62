import nodemailer from "nodemailer";
import { AppError } from "./errors";
import { env } from "./env";
import { logger } from "./logger";

/**
 * The platform's own mail (invitations), sent through the operator's SMTP
 * server (CAPSTAN_SMTP_URL, CAPSTAN_MAIL_FROM). Distinct from the email.send
 * capability (src/server/bridge/providers/smtp.ts), which sends a product's
 * mail with a workspace's credential through the egress guard: this server
 * is the operator's configuration, so it may be private (a relay on the host).
 * One pooled transport per URL.
 */
export type TMail = {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments?: Array<{ filename: string; content: Buffer; contentType: string }>;
};

const transports = new Map<string, nodemailer.Transporter>();

function transport(url: string): nodemailer.Transporter {
  let tr = transports.get(url);
  if (!tr) {
    tr = nodemailer.createTransport(url, { from: env().CAPSTAN_MAIL_FROM });
    // A pool keeps connections warm; the URL decides TLS (smtps://) and credentials.
    transports.set(url, tr);
  }
  return tr;
}

/** True when the platform can send mail. */
export function mailConfigured(): boolean {
  return Boolean(env().CAPSTAN_SMTP_URL);
}

/** 503 when no sender is configured: say which setting is missing. */
export function requireMailer(): void {
  if (!mailConfigured()) {
    throw new AppError(
      "unavailable",
      "This Capstan has no mail sender configured (CAPSTAN_SMTP_URL), so it cannot send invitations",
      {
        reason: "mail_not_configured",
      },
    );
  }
}

/**
 * Sends one message. Resolves to null when the SMTP server accepted it, or to
 * a short reason in words when it did not (the caller records it; the SMTP
 * password never appears in it).
 */
export async function sendMail(m: TMail): Promise<string | null> {
  const url = env().CAPSTAN_SMTP_URL;
  if (!url) return "no mail sender is configured (CAPSTAN_SMTP_URL)";
  try {
    const info = (await transport(url).sendMail({
      from: env().CAPSTAN_MAIL_FROM,
      to: m.to,
      subject: m.subject,
      text: m.text,
      html: m.html,
      attachments: m.attachments,
    })) as {
      rejected?: unknown[];
    };
    if (info.rejected?.length) return `the mail server refused the recipient ${m.to}`;
    return null;
  } catch (err) {
    const e = err as { code?: string; responseCode?: number; response?: string };
    const reason = e.responseCode
      ? `the mail server answered ${e.responseCode}${e.response ? `: ${e.response.replace(/\s+/g, " ").slice(0, 200)}` : ""}`
      : `the mail server could not be reached (${e.code ?? "error"})`;
    logger.warn("mail.failed", { to_domain: m.to.split("@")[1], reason });
    return reason;
  }
}

/** Tests switch servers between files: forget the pooled transports. */
export function resetMailTransports(): void {
  for (const tr of transports.values()) tr.close();
  transports.clear();
}
