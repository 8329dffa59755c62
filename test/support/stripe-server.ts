import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback Stripe-compatible API for tests: just the endpoints the Stripe
 * gateway uses (POST /v1/checkout/sessions, POST /v1/refunds), form-encoded
 * bodies as the official `stripe` package sends them, Bearer secret key
 * auth, Idempotency-Key replay (same key + same body = same object; other
 * body = 400 like Stripe). `complete`/`expire` move a session as a payer or
 * Stripe would and return the event Stripe would deliver (the test signs it).
 */
export type TStripeSession = {
  id: string; object: "checkout.session"; mode: "payment"; status: "open" | "complete" | "expired";
  payment_status: "unpaid" | "paid"; amount_total: number; currency: string; client_reference_id: string | null;
  metadata: Record<string, string>; payment_intent: string | null; url: string | null; success_url: string; cancel_url: string;
};
export type TStripeEvent = { id: string; object: "event"; type: string; created: number; livemode: false; api_version: string; data: { object: TStripeSession } };
export type TStripeServer = {
  base: string;
  secretKey: string;
  sessions: Map<string, TStripeSession>;
  requests: Array<{ method: string; path: string; idempotencyKey: string | null; form: Record<string, string> }>;
  /** The next N requests answer 500 (a gateway outage). */
  failNext(n: number): void;
  /** The payer paid (or, with `delayed`, completed with a delayed payment method): the event Stripe sends. */
  complete(sessionId: string, opts?: { delayed?: boolean }): TStripeEvent;
  asyncResult(sessionId: string, ok: boolean): TStripeEvent;
  expire(sessionId: string): TStripeEvent;
  refundedOf(paymentIntent: string): number;
  close(): Promise<void>;
};

const rid = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("hex")}`;

function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")))));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "request-id": rid("req") });
  res.end(JSON.stringify(body));
}

const stripeError = (res: ServerResponse, status: number, message: string, code?: string) =>
  send(res, status, { error: { type: "invalid_request_error", message, ...(code ? { code } : {}) } });

export async function startStripeServer(): Promise<TStripeServer> {
  const secretKey = `sk_test_${randomBytes(16).toString("hex")}`;
  const sessions = new Map<string, TStripeSession>();
  const intents = new Map<string, { amount: number; currency: string; refunded: number }>();
  const idem = new Map<string, { form: string; status: number; body: unknown }>();
  const requests: TStripeServer["requests"] = [];
  let failing = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const form = await readForm(req);
    const url = new URL(req.url ?? "/", "http://stripe.test");
    const key = (req.headers["idempotency-key"] as string | undefined) ?? null;
    requests.push({ method: req.method ?? "", path: url.pathname, idempotencyKey: key, form });
    if (req.headers.authorization !== `Bearer ${secretKey}`) return send(res, 401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
    if (failing > 0) {
      failing--;
      return send(res, 500, { error: { type: "api_error", message: "An unknown error occurred" } });
    }
    const answer = (status: number, body: unknown) => {
      if (key && req.method === "POST") idem.set(`${url.pathname}:${key}`, { form: JSON.stringify(form), status, body });
      send(res, status, body);
    };
    if (key && req.method === "POST") {
      const prior = idem.get(`${url.pathname}:${key}`);
      if (prior && prior.form !== JSON.stringify(form)) {
        return stripeError(res, 400, "Keys for idempotent requests can only be used with the same parameters they were first used with.", "idempotency_error");
      }
      if (prior) return send(res, prior.status, prior.body);
    }

    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const amount = Number(form["line_items[0][price_data][unit_amount]"]);
      const currency = form["line_items[0][price_data][currency]"];
      if (form.mode !== "payment" || !Number.isSafeInteger(amount) || amount < 1 || !currency || !form.success_url) {
        return stripeError(res, 400, "Missing required param: line_items[0][price_data], mode or success_url.", "parameter_missing");
      }
      const id = rid("cs");
      const metadata: Record<string, string> = {};
      for (const [k, v] of Object.entries(form)) {
        const m = /^metadata\[(.+)\]$/.exec(k);
        if (m) metadata[m[1]!] = v;
      }
      const session: TStripeSession = {
        id, object: "checkout.session", mode: "payment", status: "open", payment_status: "unpaid", amount_total: amount, currency,
        client_reference_id: form.client_reference_id ?? null, metadata, payment_intent: null, url: `https://checkout.stripe.test/c/pay/${id}`,
        success_url: form.success_url, cancel_url: form.cancel_url ?? "",
      };
      sessions.set(id, session);
      return answer(200, session);
    }
    if (req.method === "POST" && url.pathname === "/v1/refunds") {
      const pi = intents.get(form.payment_intent ?? "");
      if (!pi) return stripeError(res, 404, `No such payment_intent: '${form.payment_intent}'`, "resource_missing");
      const amount = form.amount ? Number(form.amount) : pi.amount - pi.refunded;
      if (!Number.isSafeInteger(amount) || amount < 1 || amount > pi.amount - pi.refunded) {
        return answer(400, { error: { type: "invalid_request_error", message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${pi.amount - pi.refunded})`, code: "amount_too_large" } });
      }
      pi.refunded += amount;
      return answer(200, { id: rid("re"), object: "refund", amount, currency: pi.currency, payment_intent: form.payment_intent, status: "succeeded" });
    }
    return stripeError(res, 404, `Unrecognized request URL (${req.method}: ${url.pathname}).`);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, { error: { type: "api_error", message: String(err) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const event = (type: string, s: TStripeSession): TStripeEvent => ({
    id: rid("evt"), object: "event", type, created: Math.floor(Date.now() / 1000), livemode: false, api_version: "2025-01-27.acacia",
    data: { object: structuredClone(s) },
  });
  const get = (id: string) => {
    const s = sessions.get(id);
    if (!s) throw new Error(`no session ${id}`);
    return s;
  };
  const pay = (s: TStripeSession) => {
    s.payment_intent ??= rid("pi");
    intents.set(s.payment_intent, { amount: s.amount_total, currency: s.currency, refunded: 0 });
  };

  return {
    base: `http://127.0.0.1:${port}`, secretKey, sessions, requests,
    failNext: (n) => void (failing = n),
    complete(id, opts = {}) {
      const s = get(id);
      s.status = "complete";
      s.url = null;
      if (opts.delayed) s.payment_intent ??= rid("pi");
      else {
        s.payment_status = "paid";
        pay(s);
      }
      return event("checkout.session.completed", s);
    },
    asyncResult(id, ok) {
      const s = get(id);
      if (ok) {
        s.payment_status = "paid";
        pay(s);
      }
      return event(ok ? "checkout.session.async_payment_succeeded" : "checkout.session.async_payment_failed", s);
    },
    expire(id) {
      const s = get(id);
      s.status = "expired";
      s.url = null;
      return event("checkout.session.expired", s);
    },
    refundedOf: (pi) => intents.get(pi)?.refunded ?? 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
