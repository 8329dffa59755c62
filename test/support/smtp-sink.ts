import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/**
 * A real SMTP server on loopback that keeps what it receives (no auth, no
 * TLS): the platform mailer's target in integration and e2e tests. Plain
 * module (no test-runner imports) so Playwright specs use it too.
 */
export type TReceivedMail = { from: string; to: string[]; subject: string; text: string; html: string; raw: string };

/** Quoted-printable to text (soft line breaks, =XX escapes), enough for our ASCII/UTF-8 mails. */
function decodeQp(s: string): string {
  const bytes = s
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** The decoded parts of a (possibly multipart) message, by content type. */
function parts(raw: string): { text: string; html: string } {
  const out = { text: "", html: "" };
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)?.[1];
  const chunks = boundary ? raw.split(`--${boundary}`) : [raw];
  for (const c of chunks) {
    const split = c.indexOf("\r\n\r\n");
    if (split < 0) continue;
    const head = c.slice(0, split);
    let body = c.slice(split + 4).replace(/\r\n$/, "");
    if (/content-transfer-encoding:\s*quoted-printable/i.test(head)) body = decodeQp(body);
    else if (/content-transfer-encoding:\s*base64/i.test(head))
      body = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    if (/content-type:\s*text\/html/i.test(head)) out.html = body;
    else if (/content-type:\s*text\/plain/i.test(head)) out.text = body;
  }
  return out;
}

export type TSmtpSink = {
  port: number;
  url: string;
  inbox: TReceivedMail[];
  /** Resolves with the first message to `to` (arriving now or later), or rejects after `ms`. */
  waitFor(to: string, ms?: number): Promise<TReceivedMail>;
  stop(): Promise<void>;
};

/** `auth`: the sink offers AUTH (PLAIN, LOGIN; no TLS) and accepts this user and password only. */
export async function startSmtpSink(
  port = 0,
  opts: { auth?: { user: string; pass: string } } = {},
): Promise<TSmtpSink> {
  const inbox: TReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: !opts.auth,
    disabledCommands: opts.auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass)
        cb(null, { user: auth.username });
      else cb(new Error("Invalid username or password"));
    },
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const headers = raw.slice(0, raw.indexOf("\r\n\r\n"));
        const subject =
          /^Subject: (.*(?:\r\n[ \t].*)*)$/m
            .exec(headers)?.[1]
            ?.replace(/\r\n[ \t]/g, " ")
            .trim() ?? "";
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          subject,
          raw,
          ...parts(raw),
        });
        for (const w of waiters.splice(0)) w();
        cb();
      });
    },
  });
  const bound = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve((server.server.address() as AddressInfo).port));
  });
  return {
    port: bound,
    url: `smtp://127.0.0.1:${bound}`,
    inbox,
    waitFor(to, ms = 10_000) {
      const find = () => inbox.find((m) => m.to.includes(to.toLowerCase()));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail to ${to} within ${ms} ms`)), ms);
        const check = () => {
          const m = find();
          if (m) {
            clearTimeout(timer);
            resolve(m);
          } else waiters.push(check);
        };
        check();
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The accept link of an invitation email. */
export function invitationLinkOf(mail: TReceivedMail): string {
  const m = /https?:\/\/\S+\/invite\/([A-Za-z0-9_-]{43})/.exec(mail.text);
  if (!m) throw new Error(`no invitation link in: ${mail.text}`);
  return m[0];
}
