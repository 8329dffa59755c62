import { createHash } from "node:crypto";
import { isIP } from "node:net";
import nodemailer from "nodemailer";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import { egressBlocked, resolveEgress } from "@/server/platform/egress";
import { ProviderError } from "./types";

/**
 * SMTP via nodemailer, one pooled transport (keep-alive) per checked address
 * and target (host, port, TLS, user, password). 5xx answers and
 * authentication failures are the provider rejecting the message
 * (provider_rejected); connection problems and 4xx are transient
 * (provider_unavailable).
 *
 * Egress: nodemailer resolves hosts on its own, so each send resolves the
 * host through the egress guard first (a host with any non-public address
 * is refused: provider_unavailable) and connects to the checked addresses
 * only, IPv4 first (as nodemailer does), the next one when a connection
 * cannot be opened; the host name is kept for TLS (SNI and certificate).
 */
type TSmtpTarget = { host: string; port: number; secure: boolean; auth: { user: string; pass: string } };
type TMessage = { from: string; recipients: string[]; subject: string; text?: string; html?: string };

/** Oldest transports are closed beyond this many (rotating DNS answers or passwords would otherwise grow the map). */
const MAX_TRANSPORTS = 64;
const transports = new Map<string, nodemailer.Transporter>();

function transport(t: TSmtpTarget, host: string, address: string): nodemailer.Transporter {
  const key = createHash("sha256")
    .update(JSON.stringify([address, host, t.port, t.secure, t.auth.user, t.auth.pass]))
    .digest("hex");
  let tr = transports.get(key);
  if (!tr) {
    tr = nodemailer.createTransport({
      host: address,
      port: t.port,
      secure: t.secure,
      auth: t.auth,
      pool: true,
      maxConnections: 5,
      ...(isIP(host) ? {} : { servername: host }),
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
      // Loopback test servers have no certificate; real servers are verified.
      tls: { rejectUnauthorized: !["127.0.0.1", "localhost", "::1"].includes(host) },
    });
    transports.set(key, tr);
    if (transports.size > MAX_TRANSPORTS) {
      const [oldestKey, oldest] = transports.entries().next().value!;
      transports.delete(oldestKey);
      oldest.close();
    }
  }
  return tr;
}

type TSmtpError = { code?: string; responseCode?: number; syscall?: string; message?: string };

/** No connection was opened (so nothing was sent): another address of the host may be tried. */
const notConnected = (e: TSmtpError) =>
  e.syscall === "connect" || (e.code === "ETIMEDOUT" && /^Connection timeout/.test(e.message ?? ""));

const addressText = (a: string | { address: string }): string => (typeof a === "string" ? a : a.address);

export async function smtpSend(
  t: TSmtpTarget,
  m: TMessage,
): Promise<{ message_id: string; accepted: string[]; rejected: string[] }> {
  const host = t.host.replace(/^\[|\]$/g, "");
  try {
    const addresses = (await resolveEgress("provider", host)).sort((a, b) => a.family - b.family);
    for (let i = 0; ; i++) {
      try {
        // nodemailer's SentMessageInfo is `any` for a pooled SMTP transport; this is its shape.
        const info = (await transport(t, host, addresses[i]!.address).sendMail({
          from: m.from,
          to: m.recipients,
          subject: m.subject,
          text: m.text,
          html: m.html,
        })) as {
          messageId?: string;
          accepted?: Array<string | { address: string }>;
          rejected?: Array<string | { address: string }>;
        };
        return {
          message_id: String(info.messageId ?? ""),
          accepted: (info.accepted ?? []).map(addressText),
          rejected: (info.rejected ?? []).map(addressText),
        };
      } catch (err) {
        if (i + 1 < addresses.length && notConnected(err as TSmtpError)) continue;
        throw err;
      }
    }
  } catch (err) {
    const blocked = egressBlocked(err);
    if (blocked) throw new ProviderError("unavailable", blocked.message);
    const e = err as TSmtpError;
    if (e.code === "EAUTH" || (e.responseCode !== undefined && e.responseCode >= 500)) {
      throw new ProviderError("rejected", `SMTP ${e.responseCode ?? e.code}`);
    }
    throw new ProviderError("unavailable", `SMTP ${e.code ?? "error"}`);
  }
}

/**
 * A binding test's SMTP check (no mail is sent): connect to the first checked
 * address that accepts a connection, EHLO (STARTTLS when offered, as a send
 * would), and AUTH with the binding's user and password when the server
 * offers AUTH, then QUIT. Answers the TLS mode, the server's EHLO line and
 * whether the sign-in was checked; errors are ProviderErrors as smtpSend's.
 */
export async function smtpCheck(
  t: TSmtpTarget,
): Promise<{ tls: "tls" | "starttls" | "none"; ehlo: string; authenticated: boolean }> {
  const host = t.host.replace(/^\[|\]$/g, "");
  try {
    const addresses = (await resolveEgress("provider", host)).sort((a, b) => a.family - b.family);
    for (let i = 0; ; i++) {
      try {
        return await checkOnce(t, host, addresses[i]!.address);
      } catch (err) {
        if (i + 1 < addresses.length && notConnected(err as TSmtpError)) continue;
        throw err;
      }
    }
  } catch (err) {
    const blocked = egressBlocked(err);
    if (blocked) throw new ProviderError("unavailable", blocked.message);
    const e = err as TSmtpError;
    const said = e.message ? `: ${e.message.replace(/\s+/g, " ").slice(0, 200)}` : "";
    if (e.code === "EAUTH" || (e.responseCode !== undefined && e.responseCode >= 500)) {
      throw new ProviderError("rejected", `SMTP ${e.responseCode ?? e.code}${said}`);
    }
    throw new ProviderError("unavailable", `SMTP ${e.code ?? "error"}${said}`);
  }
}

function checkOnce(
  t: TSmtpTarget,
  host: string,
  address: string,
): Promise<{ tls: "tls" | "starttls" | "none"; ehlo: string; authenticated: boolean }> {
  const conn = new SMTPConnection({
    host: address,
    port: t.port,
    secure: t.secure,
    ...(isIP(host) ? {} : { servername: host }),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 15_000,
    tls: { rejectUnauthorized: !["127.0.0.1", "localhost", "::1"].includes(host) },
  });
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (
      err: Error | null | undefined,
      value?: { tls: "tls" | "starttls" | "none"; ehlo: string; authenticated: boolean },
    ) => {
      if (done) return;
      done = true;
      if (err) {
        conn.close();
        reject(err);
      } else {
        conn.quit();
        resolve(value!);
      }
    };
    conn.once("error", (err) => finish(err));
    conn.once("end", () =>
      finish(Object.assign(new Error("the server closed the connection"), { code: "ECONNECTION" })),
    );
    conn.connect((err) => {
      if (err) return finish(err);
      const ehlo =
        String(conn.lastServerResponse || "")
          .split(/\r?\n/)[0]
          ?.replace(/^250[- ]/, "")
          .trim() ?? "";
      const tls = t.secure ? "tls" : conn.secure ? "starttls" : "none";
      // nodemailer's own rule (as verify() and a send): sign in only when the server offers AUTH.
      if (!(conn as unknown as { allowsAuth: boolean }).allowsAuth)
        return finish(null, { tls, ehlo, authenticated: false });
      conn.login({ user: t.auth.user, pass: t.auth.pass }, (e) =>
        e ? finish(e) : finish(null, { tls, ehlo, authenticated: true }),
      );
    });
  });
}
