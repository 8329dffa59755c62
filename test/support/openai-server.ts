import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 for Bridge tests:
 * POST {base}/chat/completions and POST {base}/embeddings (base = /v1),
 * `Authorization: Bearer <key>` checked against the configured key (401
 * otherwise), answers carry `usage.total_tokens`. The behaviour can be
 * switched at any time:
 *
 * - ok:    200; chat answers `text` (default "ok"), embeddings a short vector;
 *          total_tokens = `tokens`, or the request's max_tokens when tokens is
 *          "max_tokens" (the default: usage equal to the reservation).
 * - echo:  200 whose completion text is `text` (to test output_blocked).
 * - 500 / 400 / 529: that status with an OpenAI-style error body (529:
 *          Anthropic's "overloaded").
 * - delayMs: wait that long before answering (any mode).
 *
 * Anthropic Messages too: POST {base}/messages with `x-api-key: <key>` (401
 * otherwise) and an `anthropic-version` header (400 otherwise), Anthropic-
 * style answers and errors (`{type: "error", error: {type, message}}`), the
 * same modes, usage split into input_tokens + output_tokens summing to the
 * tokens above. Calls land in the same `calls` list (with their headers).
 *
 * Down: close() stops listening (connection refused from then on), and
 * closedPortUrl() yields a base URL of a port nobody listens on.
 */
export type TOpenAiMode = "ok" | "echo" | "500" | "400" | "529";
export type TOpenAiBehaviour = {
  mode: TOpenAiMode;
  text?: string;
  tokens?: number | "max_tokens";
  delayMs?: number;
};
export type TOpenAiCall = {
  path: string;
  authorized: boolean;
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
};

export type TOpenAiServer = {
  /** e.g. http://127.0.0.1:43123/v1 */
  baseUrl: string;
  apiKey: string;
  calls: TOpenAiCall[];
  /** Calls that passed the key check (the ones a provider would bill). */
  authorizedCalls(): number;
  behave(b: Partial<TOpenAiBehaviour> & { mode: TOpenAiMode }): void;
  close(): Promise<void>;
};

const DEFAULT: TOpenAiBehaviour = { mode: "ok", text: "ok", tokens: "max_tokens", delayMs: 0 };

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function totalTokens(b: TOpenAiBehaviour, body: Record<string, unknown>): number {
  const maxTokens = typeof body.max_tokens === "number" ? body.max_tokens : 16;
  return b.tokens === "max_tokens" || b.tokens === undefined ? maxTokens : b.tokens;
}

/** POST /v1/messages in Anthropic's format (https://docs.anthropic.com/en/api/messages). */
function anthropicAnswer(
  res: http.ServerResponse,
  b: TOpenAiBehaviour,
  body: Record<string, unknown>,
  authorized: boolean,
  headers: http.IncomingHttpHeaders,
  n: number,
): void {
  const error = (status: number, type: string, message: string) =>
    json(res, status, { type: "error", error: { type, message } });
  if (!authorized) return error(401, "authentication_error", "invalid x-api-key");
  if (!headers["anthropic-version"])
    return error(400, "invalid_request_error", "anthropic-version: header is required");
  if (b.mode === "500") return error(500, "api_error", "Internal server error");
  if (b.mode === "529") return error(529, "overloaded_error", "Overloaded");
  if (b.mode === "400") return error(400, "invalid_request_error", "bad request");
  if (typeof body.model !== "string" || typeof body.max_tokens !== "number" || !Array.isArray(body.messages)) {
    return error(400, "invalid_request_error", "model, max_tokens and messages are required");
  }
  const total = totalTokens(b, body);
  const input = Math.floor(total / 2);
  return json(res, 200, {
    id: `msg_${n}`,
    type: "message",
    role: "assistant",
    model: body.model,
    content: [{ type: "text", text: b.text ?? "ok" }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: input, output_tokens: total - input },
  });
}

export async function startOpenAiServer(
  apiKey: string,
  initial: Partial<TOpenAiBehaviour> = {},
): Promise<TOpenAiServer> {
  let behaviour: TOpenAiBehaviour = { ...DEFAULT, ...initial };
  const calls: TOpenAiCall[] = [];
  const server = http.createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      let body: Record<string, unknown> = {};
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        return json(res, 400, { error: { message: "invalid JSON", type: "invalid_request_error" } });
      }
      const path = (req.url ?? "/").split("?")[0]!;
      const anthropic = path === "/v1/messages";
      const authorized = anthropic
        ? req.headers["x-api-key"] === apiKey
        : req.headers.authorization === `Bearer ${apiKey}`;
      calls.push({ path, authorized, body, headers: req.headers });
      const b = behaviour;
      if (b.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
      if (anthropic && req.method === "POST")
        return anthropicAnswer(res, b, body, authorized, req.headers, calls.length);
      if (req.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/v1/embeddings")) {
        return json(res, 404, { error: { message: `no route ${req.method} ${path}`, type: "invalid_request_error" } });
      }
      if (!authorized)
        return json(res, 401, { error: { message: "Incorrect API key provided", type: "invalid_request_error" } });
      if (b.mode === "500") return json(res, 500, { error: { message: "internal error", type: "server_error" } });
      if (b.mode === "400") return json(res, 400, { error: { message: "bad request", type: "invalid_request_error" } });
      if (b.mode === "529") return json(res, 529, { error: { message: "overloaded", type: "server_error" } });
      const total = totalTokens(b, body);
      const usage = {
        prompt_tokens: Math.floor(total / 2),
        completion_tokens: total - Math.floor(total / 2),
        total_tokens: total,
      };
      if (path === "/v1/embeddings") {
        return json(res, 200, {
          object: "list",
          model: body.model,
          data: [{ object: "embedding", index: 0, embedding: [0.1, 0.2, 0.3] }],
          usage,
        });
      }
      const text = b.text ?? "ok";
      return json(res, 200, {
        id: `chatcmpl-${calls.length}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        usage,
      });
    })().catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: { message: String(err), type: "server_error" } });
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  let closed = false;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey,
    calls,
    authorizedCalls: () => calls.filter((c) => c.authorized).length,
    behave(b) {
      behaviour = { ...DEFAULT, ...b };
    },
    async close() {
      if (closed) return;
      closed = true;
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await done;
    },
  };
}

/** A base URL on 127.0.0.1 whose port was free a moment ago and is closed now: connection refused. */
export async function closedPortUrl(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
