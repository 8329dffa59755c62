import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  aiCapability,
  bootBridgeApp,
  bridge,
  kvCapability,
  setupBridge,
  type TBridgeSetup,
} from "./support/bridge-fixtures";
import { startBridgeNodeServer } from "./support/handlers";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";
import { checkedFetch } from "./support/openapi-responses";

/**
 * Capstan-Overhead-Ms and Server-Timing on both Bridge transports: the web
 * handler (the Next.js route) and the Node transport the `npm start` server
 * uses (serveBridgeNode on a real node:http server). No timed assertions:
 * the checks are relations between the figures of one response (the
 * provider's sleep is in `provider`, never in the overhead).
 */
const PHASES = ["auth", "admission", "reserve", "provider", "record", "overhead", "total"];
const SLEEP_MS = 200;

/** Parses `a;dur=1.5, b;dur=2` strictly: every entry a token name with one numeric dur. */
function parseServerTiming(header: string | null): Record<string, number> {
  expect(header).toMatch(/^[A-Za-z]+;dur=\d/);
  const out: Record<string, number> = {};
  for (const entry of header!.split(",")) {
    const m = /^\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+);dur=(\d+(?:\.\d+)?)\s*$/.exec(entry);
    expect(m, `malformed Server-Timing entry ${JSON.stringify(entry)} in ${header}`).not.toBeNull();
    out[m![1]!] = Number(m![2]);
  }
  return out;
}

function checkTiming(headers: Headers): { timing: Record<string, number>; overhead: number } {
  const timing = parseServerTiming(headers.get("server-timing"));
  // `commit` (the record statement's round trip) is part of `record`, not a phase: present when a statement carried the call.
  expect(Object.keys(timing).filter((k) => k !== "commit")).toEqual(PHASES);
  if ("commit" in timing) expect(timing.commit).toBeLessThanOrEqual(timing.record! + 0.05);
  const overhead = Number(headers.get("capstan-overhead-ms"));
  expect(headers.get("capstan-overhead-ms")).toMatch(/^\d+(\.\d+)?$/);
  // The header and the Server-Timing entry are the same figure; the phases never add up past the total.
  expect(timing.overhead).toBe(overhead);
  const phases = timing.auth! + timing.admission! + timing.reserve! + timing.provider! + timing.record!;
  expect(phases).toBeLessThanOrEqual(timing.total! + 0.05);
  return { timing, overhead };
}

let provider: TOpenAiServer;
let s: TBridgeSetup;
let node: Awaited<ReturnType<typeof startBridgeNodeServer>>;

beforeAll(async () => {
  await bootBridgeApp();
  provider = await startOpenAiServer(`sk-timing-${randomBytes(8).toString("hex")}`);
  s = await setupBridge({
    capabilities: [kvCapability(), aiCapability()],
    providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
  });
  node = await startBridgeNodeServer();
}, 120_000);

afterAll(async () => {
  await node?.close();
  await provider?.close();
});

const generate = { model_kind: "text", input: { text: "hi" }, max_tokens: 5 };

async function viaNode(capability: string, action: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await checkedFetch(`${node.url}/v1/capabilities/${capability}/${action}`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined, text };
}

describe.each([
  ["web handler (Next.js route)", (c: string, a: string, b: unknown) => bridge(s.token, c, a, b)],
  ["Node transport (npm start)", viaNode],
])("%s", (_name, call) => {
  it("a provider that sleeps 200 ms shows in Server-Timing's provider, not in Capstan-Overhead-Ms", async () => {
    provider.behave({ mode: "ok", delayMs: SLEEP_MS });
    const r = await call("ai.generate", "generate", generate);
    provider.behave({ mode: "ok" });
    expect(r.status, r.text).toBe(200);
    const { timing, overhead } = checkTiming(r.headers);
    expect(timing.provider).toBeGreaterThanOrEqual(SLEEP_MS);
    // Overhead is the total less the upstream's time: the sleep is not in it.
    expect(overhead).toBeLessThanOrEqual(timing.total! - SLEEP_MS + 0.05);
    expect(Math.abs(overhead - (timing.total! - timing.provider!))).toBeLessThanOrEqual(0.05);
    // The record statement that carried the call is named, inside record.
    expect(timing.commit).toBeGreaterThan(0);
  });

  it("data.kv's store is Capstan's own work: its time is overhead", async () => {
    const r = await call("data.kv", "set", { key: "/app/timing", value: { a: 1 } });
    expect(r.status, r.text).toBe(200);
    const { timing, overhead } = checkTiming(r.headers);
    expect(overhead).toBe(timing.total);
  });

  it("denials and problems carry both headers too", async () => {
    const outside = await call("data.kv", "get", { key: "/elsewhere/x" });
    expect(outside.status, outside.text).toBe(403);
    expect(outside.json.reason).toBe("outside_contract");
    checkTiming(outside.headers);
    const invalid = await call("data.kv", "get", { nope: true });
    expect(invalid.status).toBe(422);
    checkTiming(invalid.headers);
  });
});

describe("Node transport specifics", () => {
  it("answers as the web handler does: same body shape, a 401 without a token, 413 past the body limit", async () => {
    const r = await viaNode("data.kv", "get", { key: "/app/timing" });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ capability: "data.kv", action: "get", outcome: "completed", provider: "platform" });
    expect(r.headers.get("x-correlation-id")).toMatch(/^evt_/);

    const anon = await checkedFetch(`${node.url}/v1/capabilities/data.kv/get`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("content-type")).toBe("application/problem+json");
    expect(anon.headers.get("www-authenticate")).toMatch(/^Bearer/);
    checkTiming(anon.headers);

    const big = await viaNode("data.kv", "set", { key: "/app/big", value: "x".repeat(2_000_000) });
    expect(big.status).toBe(413);
    expect(big.json.reason).toBe("payload_too_large");
  });

  it("leaves everything but POST /v1/capabilities/{capability}/{action} to the next handler", async () => {
    const get = await fetch(`${node.url}/v1/capabilities/data.kv/get`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    expect(get.status).toBe(404);
    expect(get.headers.get("server-timing")).toBeNull();
    const other = await fetch(`${node.url}/v1/workspaces`, { method: "POST", body: "{}" });
    expect(other.status).toBe(404);
  });
});
