import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback Stripe-compatible API for tests: just the endpoints the Stripe
 * gateway uses (checkout sessions in payment and setup mode and their expiry,
 * customers, setup intents, payment methods and their detach, off-session
 * PaymentIntents, refunds, reading a session back), form-encoded
 * bodies as the official `stripe` package sends them, Bearer secret key
 * auth, Idempotency-Key replay (same key + same body = same object; other
 * body = 400 like Stripe). `complete`/`expire` move a session as a payer or
 * Stripe would and return the event Stripe would deliver (the test signs it).
 */
export type TStripeSession = {
  id: string;
  object: "checkout.session";
  mode: "payment" | "setup";
  status: "open" | "complete" | "expired";
  customer: string | null;
  setup_intent: string | null;
  payment_status: "unpaid" | "paid";
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
  url: string | null;
  success_url: string;
  cancel_url: string;
};
/** How a test card behaves when charged off-session (Stripe's test cards 4242…, 0002 decline, 3155 3-D Secure). */
export type TCardBehaviour = "ok" | "decline" | "authenticate";
export type TStripeIntent = {
  id: string;
  object: "payment_intent";
  amount: number;
  currency: string;
  customer: string | null;
  payment_method: string | null;
  status: "succeeded" | "requires_payment_method" | "requires_action" | "canceled";
  metadata: Record<string, string>;
  next_action: null | { type: "redirect_to_url"; redirect_to_url: { url: string; return_url: string | null } };
  last_payment_error: null | { code: string; decline_code?: string; message: string };
};
export type TStripeEvent<T = TStripeSession> = {
  id: string;
  object: "event";
  type: string;
  created: number;
  livemode: false;
  api_version: string;
  data: { object: T };
};
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
  /** The payer saved a card on a setup-mode session: the card is attached to the session's customer; the event Stripe sends. */
  completeSetup(sessionId: string, card?: TCardBehaviour): TStripeEvent;
  /** Changes how a saved card behaves from now on (a card that starts declining, or works again). */
  setCard(paymentMethod: string, card: TCardBehaviour): void;
  /** The owner passed (or failed) 3-D Secure on an intent that required it: the event Stripe sends. */
  authenticate(paymentIntent: string, ok: boolean): TStripeEvent<TStripeIntent>;
  intents: Map<string, TStripeIntent>;
  customers: Set<string>;
  detached: Set<string>;
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
  const paymentIntents = new Map<string, TStripeIntent>();
  const customers = new Set<string>();
  const cards = new Map<string, { customer: string; behaviour: TCardBehaviour; last4: string; brand: string }>();
  const setupIntents = new Map<string, { id: string; payment_method: string; customer: string }>();
  const detached = new Set<string>();
  const metadataOf = (form: Record<string, string>) => {
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(form)) {
      const m = /^metadata\[(.+)\]$/.exec(k);
      if (m) metadata[m[1]!] = v;
    }
    return metadata;
  };
  const idem = new Map<string, { form: string; status: number; body: unknown }>();
  const requests: TStripeServer["requests"] = [];
  let failing = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const form = await readForm(req);
    const url = new URL(req.url ?? "/", "http://stripe.test");
    const key = (req.headers["idempotency-key"] as string | undefined) ?? null;
    requests.push({ method: req.method ?? "", path: url.pathname, idempotencyKey: key, form });
    if (req.headers.authorization !== `Bearer ${secretKey}`)
      return send(res, 401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
    if (failing > 0) {
      failing--;
      return send(res, 500, { error: { type: "api_error", message: "An unknown error occurred" } });
    }
    const answer = (status: number, body: unknown) => {
      if (key && req.method === "POST")
        idem.set(`${url.pathname}:${key}`, { form: JSON.stringify(form), status, body });
      send(res, status, body);
    };
    if (key && req.method === "POST") {
      const prior = idem.get(`${url.pathname}:${key}`);
      if (prior && prior.form !== JSON.stringify(form)) {
        return stripeError(
          res,
          400,
          "Keys for idempotent requests can only be used with the same parameters they were first used with.",
          "idempotency_error",
        );
      }
      if (prior) return send(res, prior.status, prior.body);
    }

    if (req.method === "POST" && url.pathname === "/v1/customers") {
      const id = rid("cus");
      customers.add(id);
      return answer(200, { id, object: "customer", metadata: metadataOf(form) });
    }
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions" && form.mode === "setup") {
      if (!form.customer || !customers.has(form.customer) || !form.success_url)
        return stripeError(res, 400, "Missing required param: customer or success_url.", "parameter_missing");
      const id = rid("cs");
      const session: TStripeSession = {
        id,
        object: "checkout.session",
        mode: "setup",
        status: "open",
        payment_status: "unpaid",
        amount_total: 0,
        currency: form.currency ?? "",
        client_reference_id: form.client_reference_id ?? null,
        metadata: metadataOf(form),
        payment_intent: null,
        url: `https://checkout.stripe.test/c/setup/${id}`,
        success_url: form.success_url,
        cancel_url: form.cancel_url ?? "",
        customer: form.customer,
        setup_intent: null,
      };
      sessions.set(id, session);
      return answer(200, session);
    }
    let m = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(url.pathname);
    if (req.method === "POST" && m) {
      const s = sessions.get(m[1]!);
      if (!s) return stripeError(res, 404, `No such checkout.session: '${m[1]}'`, "resource_missing");
      if (s.status !== "open")
        return stripeError(res, 400, `This Checkout Session is ${s.status}.`, "checkout_session_not_open");
      s.status = "expired";
      s.url = null;
      return answer(200, s);
    }
    m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && m) {
      const s = sessions.get(m[1]!);
      if (!s) return stripeError(res, 404, `No such checkout.session: '${m[1]}'`, "resource_missing");
      return send(res, 200, s);
    }
    m = /^\/v1\/setup_intents\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && m) {
      const si = setupIntents.get(m[1]!);
      if (!si) return stripeError(res, 404, `No such setupintent: '${m[1]}'`, "resource_missing");
      return send(res, 200, { ...si, object: "setup_intent", status: "succeeded" });
    }
    m = /^\/v1\/payment_methods\/([^/]+)(\/detach)?$/.exec(url.pathname);
    if (m) {
      const card = cards.get(m[1]!);
      if (!card) return stripeError(res, 404, `No such PaymentMethod: '${m[1]}'`, "resource_missing");
      if (req.method === "POST" && m[2]) detached.add(m[1]!);
      const body = {
        id: m[1],
        object: "payment_method",
        type: "card",
        customer: detached.has(m[1]!) ? null : card.customer,
        card: { brand: card.brand, last4: card.last4, exp_month: 12, exp_year: 2030 },
      };
      return req.method === "POST" ? answer(200, body) : send(res, 200, body);
    }
    if (req.method === "POST" && url.pathname === "/v1/payment_intents") {
      const amount = Number(form.amount);
      const card = cards.get(form.payment_method ?? "");
      if (!Number.isSafeInteger(amount) || amount < 1 || !form.currency)
        return stripeError(res, 400, "Missing required param: amount or currency.", "parameter_missing");
      if (!card || detached.has(form.payment_method!) || card.customer !== form.customer) {
        return answer(400, {
          error: {
            type: "invalid_request_error",
            code: "resource_missing",
            message: `No such PaymentMethod: '${form.payment_method}' for customer '${form.customer}'`,
          },
        });
      }
      const pi: TStripeIntent = {
        id: rid("pi"),
        object: "payment_intent",
        amount,
        currency: form.currency,
        customer: form.customer ?? null,
        payment_method: form.payment_method ?? null,
        status: "succeeded",
        metadata: metadataOf(form),
        next_action: null,
        last_payment_error: null,
      };
      paymentIntents.set(pi.id, pi);
      if (card.behaviour === "ok") {
        intents.set(pi.id, { amount, currency: form.currency, refunded: 0 });
        return answer(200, pi);
      }
      if (card.behaviour === "decline") {
        pi.status = "requires_payment_method";
        pi.last_payment_error = {
          code: "card_declined",
          decline_code: "insufficient_funds",
          message: "Your card has insufficient funds.",
        };
        return answer(402, {
          error: {
            type: "card_error",
            code: "card_declined",
            decline_code: "insufficient_funds",
            message: "Your card has insufficient funds.",
            payment_intent: pi,
          },
        });
      }
      pi.status = "requires_action";
      pi.next_action = {
        type: "redirect_to_url",
        redirect_to_url: { url: `https://hooks.stripe.test/3d_secure_2/${pi.id}`, return_url: null },
      };
      pi.last_payment_error = {
        code: "authentication_required",
        message: "Your card was declined. This transaction requires authentication.",
      };
      return answer(402, {
        error: {
          type: "card_error",
          code: "authentication_required",
          message: "Your card was declined. This transaction requires authentication.",
          payment_intent: pi,
        },
      });
    }
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const amount = Number(form["line_items[0][price_data][unit_amount]"]);
      const currency = form["line_items[0][price_data][currency]"];
      if (form.mode !== "payment" || !Number.isSafeInteger(amount) || amount < 1 || !currency || !form.success_url) {
        return stripeError(
          res,
          400,
          "Missing required param: line_items[0][price_data], mode or success_url.",
          "parameter_missing",
        );
      }
      const id = rid("cs");
      const metadata = metadataOf(form);
      const session: TStripeSession = {
        customer: form.customer ?? null,
        setup_intent: null,
        id,
        object: "checkout.session",
        mode: "payment",
        status: "open",
        payment_status: "unpaid",
        amount_total: amount,
        currency,
        client_reference_id: form.client_reference_id ?? null,
        metadata,
        payment_intent: null,
        url: `https://checkout.stripe.test/c/pay/${id}`,
        success_url: form.success_url,
        cancel_url: form.cancel_url ?? "",
      };
      sessions.set(id, session);
      return answer(200, session);
    }
    if (req.method === "POST" && url.pathname === "/v1/refunds") {
      const pi = intents.get(form.payment_intent ?? "");
      if (!pi) return stripeError(res, 404, `No such payment_intent: '${form.payment_intent}'`, "resource_missing");
      const amount = form.amount ? Number(form.amount) : pi.amount - pi.refunded;
      if (!Number.isSafeInteger(amount) || amount < 1 || amount > pi.amount - pi.refunded) {
        return answer(400, {
          error: {
            type: "invalid_request_error",
            message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${pi.amount - pi.refunded})`,
            code: "amount_too_large",
          },
        });
      }
      pi.refunded += amount;
      return answer(200, {
        id: rid("re"),
        object: "refund",
        amount,
        currency: pi.currency,
        payment_intent: form.payment_intent,
        status: "succeeded",
      });
    }
    return stripeError(res, 404, `Unrecognized request URL (${req.method}: ${url.pathname}).`);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, { error: { type: "api_error", message: String(err) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const event = <T extends TStripeSession | TStripeIntent>(type: string, s: T): TStripeEvent<T> => ({
    id: rid("evt"),
    object: "event",
    type,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    api_version: "2025-01-27.acacia",
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
    base: `http://127.0.0.1:${port}`,
    secretKey,
    sessions,
    requests,
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
    intents: paymentIntents,
    customers,
    detached,
    completeSetup(id, behaviour = "ok") {
      const s = get(id);
      if (s.mode !== "setup" || !s.customer) throw new Error(`${id} is not a setup session`);
      const pm = rid("pm");
      const last4 = behaviour === "ok" ? "4242" : behaviour === "decline" ? "0002" : "3155";
      cards.set(pm, { customer: s.customer, behaviour, last4, brand: "visa" });
      const si = { id: rid("seti"), payment_method: pm, customer: s.customer };
      setupIntents.set(si.id, si);
      s.status = "complete";
      s.url = null;
      s.setup_intent = si.id;
      return event("checkout.session.completed", s);
    },
    setCard(pm, behaviour) {
      const c = cards.get(pm);
      if (!c) throw new Error(`no card ${pm}`);
      c.behaviour = behaviour;
    },
    authenticate(piId, ok) {
      const pi = paymentIntents.get(piId);
      if (!pi || pi.status !== "requires_action") throw new Error(`${piId} does not require action`);
      pi.next_action = null;
      if (ok) {
        pi.status = "succeeded";
        pi.last_payment_error = null;
        intents.set(pi.id, { amount: pi.amount, currency: pi.currency, refunded: 0 });
        return event("payment_intent.succeeded", pi);
      }
      pi.status = "requires_payment_method";
      pi.last_payment_error = {
        code: "payment_intent_authentication_failure",
        message: "The provided PaymentMethod has failed authentication.",
      };
      return event("payment_intent.payment_failed", pi);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
