import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { call, CliError, EXIT, output, requireWorkspace, session } from "./context";

/**
 * capstan mock-ai [--port 4010] [--json]
 *
 * A provider for trying ai.generate without a key: an OpenAI-compatible
 * echo server on 127.0.0.1 (POST /v1/chat/completions answers
 * "[MOCK-NOT-A-REAL-MODEL] You said: …", /v1/embeddings a
 * deterministic vector, both with token usage), bound to the workspace as
 * provider `openai` under the name "mock-ai (not a real model)". It runs in
 * the foreground; Ctrl-C (or SIGTERM) deletes the binding and stops it.
 * The server must allow loopback providers (CAPSTAN_PROVIDER_ALLOW_PRIVATE=1,
 * a development setting) and run on this machine.
 */
// One "word", so even a one-token answer (the console's binding test) says what it is.
export const MOCK_NOTICE = "[MOCK-NOT-A-REAL-MODEL]";

type TChat = { model?: string; messages?: Array<{ role?: string; content?: unknown }>; max_tokens?: number };

const str = (v: unknown, fallback: string) =>
  typeof v === "string" ? v : v === undefined ? fallback : JSON.stringify(v);
const words = (s: string) => Math.max(1, s.split(/\s+/).filter(Boolean).length);

export function mockAnswer(body: TChat): { text: string; prompt: number; completion: number } {
  const last = [...(body.messages ?? [])].reverse().find((m) => m.role === "user");
  const said = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
  const full = `${MOCK_NOTICE} You said: ${said}`;
  const limit = Math.max(1, body.max_tokens ?? 1024);
  const text = full
    .split(/(\s+)/)
    .slice(0, limit * 2)
    .join("")
    .trim();
  return {
    text,
    prompt: (body.messages ?? []).reduce((n, m) => n + words(typeof m.content === "string" ? m.content : ""), 0),
    completion: Math.min(words(text), limit),
  };
}

export function startMockServer(port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json", "x-capstan-mock": "not-a-real-model" });
        res.end(JSON.stringify(value));
      };
      let body: Record<string, unknown> = {};
      try {
        body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>) : {};
      } catch {
        return send(400, { error: { message: "the body is not JSON", type: "invalid_request_error" } });
      }
      const url = (req.url ?? "").replace(/\?.*$/, "");
      if (req.method === "GET" && url === "/v1/models") {
        return send(200, {
          object: "list",
          data: ["capstan-mock-echo", "capstan-mock-embed"].map((id) => ({
            id,
            object: "model",
            owned_by: "capstan-mock",
          })),
        });
      }
      if (req.method === "POST" && url === "/v1/chat/completions") {
        const a = mockAnswer(body);
        return send(200, {
          id: `chatcmpl-mock-${Date.now()}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: str(body.model, "capstan-mock-echo"),
          choices: [{ index: 0, message: { role: "assistant", content: a.text }, finish_reason: "stop" }],
          usage: { prompt_tokens: a.prompt, completion_tokens: a.completion, total_tokens: a.prompt + a.completion },
        });
      }
      if (req.method === "POST" && url === "/v1/embeddings") {
        const inputs = (Array.isArray(body.input) ? body.input : [body.input]).map((x) => str(x, ""));
        const data = inputs.map((text, index) => ({
          object: "embedding",
          index,
          embedding: [...createHash("sha256").update(text).digest().subarray(0, 8)].map((b) => b / 255),
        }));
        const tokens = inputs.reduce((n, t) => n + words(t), 0);
        return send(200, {
          object: "list",
          model: str(body.model, "capstan-mock-embed"),
          data,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        });
      }
      send(404, {
        error: {
          message: `${req.method ?? "?"} ${url} is not served by the mock provider`,
          type: "invalid_request_error",
        },
      });
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

export async function mockAiCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string", default: "4010" },
      json: { type: "boolean", default: false },
      url: { type: "string" },
      workspace: { type: "string" },
    },
  });
  const out = output(values.json);
  const s = await session(values);
  const ws = requireWorkspace(s.workspaceId);
  const server = await startMockServer(Number(values.port)).catch((err: Error) => {
    throw new CliError(
      `The mock provider could not listen on 127.0.0.1:${values.port}: ${err.message}`,
      EXIT.failed,
      "listen_failed",
    );
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    const cred = await call(
      "Creating the mock's credential",
      s.client.POST("/v1/workspaces/{ws}/credentials", {
        params: { path: { ws } },
        body: {
          secret: "mock-provider-not-a-real-key",
          provider: "openai",
          capability: "ai.generate",
          actions: ["generate"],
          scope: [],
          expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        },
      }),
    );
    const bind = await bindMock(s.client, ws, cred.id, baseUrl);
    out.result(
      `Mock provider (NOT a real model: it echoes what it is sent) on ${baseUrl}, bound to ${ws} as ${bind.id} "mock-ai (not a real model)".\nApps whose capabilities.json allows provider "openai" for ai.generate now get answers. Ctrl-C stops it and deletes the binding.`,
      { base_url: baseUrl, binding_id: bind.id, credential_id: cred.id, workspace_id: ws, not_a_real_model: true },
    );
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await call(
      "Deleting the mock's binding",
      s.client.DELETE("/v1/workspaces/{ws}/provider-bindings/{bind}", { params: { path: { ws, bind: bind.id } } }),
    ).catch((err: Error) => out.progress(err.message));
    await call(
      "Revoking the mock's credential",
      s.client.POST("/v1/workspaces/{ws}/credentials/{cred}:revoke", { params: { path: { ws, cred: cred.id } } }),
    ).catch((err: Error) => out.progress(err.message));
    out.progress("Mock provider stopped; its binding is deleted.");
    return EXIT.ok;
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

async function bindMock(
  client: Awaited<ReturnType<typeof session>>["client"],
  ws: string,
  credentialId: string,
  baseUrl: string,
) {
  const r = await client.POST("/v1/workspaces/{ws}/provider-bindings", {
    params: { path: { ws } },
    body: {
      name: "mock-ai (not a real model)",
      credential_id: credentialId,
      capability: "ai.generate",
      actions: ["generate"],
      scope: [],
      budget: { units: 1_000_000, unit: "tokens" },
      capability_scope: {
        id: "ai.generate",
        scope: { models: ["text", "embedding"], max_tokens_per_call: 100_000 },
        provider_models: { text: "capstan-mock-echo", embedding: "capstan-mock-embed" },
      },
      provider_config: { base_url: baseUrl },
    } as never,
  });
  if (
    r.response.status === 422 &&
    JSON.stringify(r.error ?? {})
      .toLowerCase()
      .includes("private")
  ) {
    throw new CliError(
      "The server refuses a provider on 127.0.0.1: start Capstan with CAPSTAN_PROVIDER_ALLOW_PRIVATE=1 (a development setting) to try the mock provider.",
      EXIT.failed,
      "provider_private_refused",
      { problem: r.error },
    );
  }
  return call("Binding the mock provider", Promise.resolve(r));
}
