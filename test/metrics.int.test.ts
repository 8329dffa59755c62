import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/server/platform/env";
import { emitEvent } from "@/server/platform/outbox";
import { db } from "@/server/platform/db/client";
import { drainOutbox } from "@/server/domain/webhooks/dispatch.service";
import { bootBridgeApp, bridge, kvCapability, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";
import { handleMetrics, startMetricsListener } from "./support/handlers";

/**
 * GET /metrics (#16 item 7, docs/decisions.md "Production metrics"): after a
 * Bridge call the Bridge histograms carry its capability and outcome; the
 * outbox, pool and event-loop series are there; the main-port route refuses
 * a scrape without the token (401 problem + WWW-Authenticate) or with a
 * wrong one, and does not exist without a configured token (404); the
 * separate listener serves without a token.
 */
const TOKEN = "metrics-token-0123456789abcdef";
process.env.CAPSTAN_METRICS_TOKEN = TOKEN;
process.env.CAPSTAN_METRICS_LISTEN = "127.0.0.1:0";
resetEnvCache();

const scrape = (headers: Record<string, string> = {}) =>
  handleMetrics(new Request("http://localhost:3000/metrics", { headers }));

/** The value of one sample line `name{labels} value` whose labels include all of `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) continue;
    const m = /^([^{ ]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

let kv: TBridgeSetup;

beforeAll(async () => {
  await bootBridgeApp();
  kv = await setupBridge({ capabilities: [kvCapability()] });
});

afterAll(() => {
  delete process.env.CAPSTAN_METRICS_TOKEN;
  delete process.env.CAPSTAN_METRICS_LISTEN;
  resetEnvCache();
});

describe("GET /metrics", () => {
  it("after Bridge calls: latency and overhead histograms by capability and outcome, denials by reason", async () => {
    const before = await (await scrape({ authorization: `Bearer ${TOKEN}` })).text();
    const countBefore =
      sample(before, "capstan_bridge_request_duration_seconds_count", {
        capability: "data.kv",
        outcome: "completed",
      }) ?? 0;
    expect((await bridge(kv.token, "data.kv", "set", { key: "/app/m", value: 1 })).status).toBe(200);
    expect((await bridge(kv.token, "data.kv", "get", { key: "/app/m" })).status).toBe(200);
    // Outside the contract's prefix: denied by policy, recorded, counted as a denial.
    const denied = await bridge(kv.token, "data.kv", "get", { key: "/other/x" });
    expect(denied.status).toBe(403);

    const res = await scrape({ authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain("# TYPE capstan_bridge_request_duration_seconds histogram");
    expect(text).toContain("# TYPE capstan_bridge_overhead_seconds histogram");
    expect(
      sample(text, "capstan_bridge_request_duration_seconds_count", { capability: "data.kv", outcome: "completed" }),
    ).toBe(countBefore + 2);
    expect(
      sample(text, "capstan_bridge_overhead_seconds_count", { capability: "data.kv", outcome: "completed" }),
    ).toBeGreaterThanOrEqual(2);
    expect(
      sample(text, "capstan_bridge_request_duration_seconds_bucket", {
        capability: "data.kv",
        outcome: "completed",
        le: "+Inf",
      }),
    ).toBe(countBefore + 2);
    expect(
      sample(text, "capstan_bridge_request_duration_seconds_count", { capability: "data.kv", outcome: "denied" }),
    ).toBeGreaterThanOrEqual(1);
    const reason = (denied.json as { reason?: string }).reason;
    expect(reason).toMatch(/^[a-z][a-z_]+$/);
    expect(
      sample(text, "capstan_bridge_denials_total", { capability: "data.kv", reason: reason! }),
    ).toBeGreaterThanOrEqual(1);
    // Process and database series.
    expect(sample(text, "capstan_nodejs_eventloop_lag_p99_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "capstan_process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(sample(text, "capstan_db_pool_connections", { pool: "prisma", state: "max" })).toBeGreaterThan(0);
    expect(sample(text, "capstan_db_pool_connections", { pool: "hot", state: "total" })).toBeGreaterThanOrEqual(0);
  });

  async function scrapeUntil(ok: (text: string) => boolean, deadlineMs = 10_000): Promise<string> {
    const end = Date.now() + deadlineMs;
    for (;;) {
      const text = await (await scrape({ authorization: `Bearer ${TOKEN}` })).text();
      if (ok(text) || Date.now() > end) return text;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("outbox depth and lag: what is undispatched, then 0 once dispatched; dispatch lag histogram counts it", async () => {
    await drainOutbox();
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        await emitEvent(db(), { workspaceId: kv.ws, type: "plan.changed", correlationId: `ctx_m${i}`, data: {} }),
      );
    await db().$executeRaw`UPDATE outbox_events SET created_at = now() - interval '30 seconds' WHERE id = ${ids[0]}`;
    // The gauges are cached per scrape for 500 ms: poll until the scrape shows the three events.
    const pending = await scrapeUntil((t) => sample(t, "capstan_outbox_depth") === 3);
    expect(sample(pending, "capstan_outbox_depth")).toBe(3);
    expect(sample(pending, "capstan_outbox_lag_seconds")).toBeGreaterThanOrEqual(30);
    const dispatchedBefore = sample(pending, "capstan_outbox_dispatch_lag_seconds_count") ?? 0;
    expect(await drainOutbox()).toBe(3);
    const after = await scrapeUntil((t) => sample(t, "capstan_outbox_depth") === 0);
    expect(sample(after, "capstan_outbox_depth")).toBe(0);
    expect(sample(after, "capstan_outbox_lag_seconds")).toBe(0);
    expect(sample(after, "capstan_outbox_dispatch_lag_seconds_count")).toBe(dispatchedBefore + 3);
  });

  it("is refused without the token (401, WWW-Authenticate) and with a wrong one; unset token: 404", async () => {
    const none = await scrape();
    expect(none.status).toBe(401);
    expect(none.headers.get("content-type")).toBe("application/problem+json");
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    const body = (await none.json()) as { code: string; instance: string };
    expect(body.code).toBe("unauthenticated");
    expect(body.instance).toBe("/metrics");

    const wrong = await scrape({ authorization: `Bearer ${TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe('Bearer realm="metrics", error="invalid_token"');
    expect(await wrong.text()).not.toContain("capstan_");
    expect((await scrape({ authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` })).status).toBe(401);

    delete process.env.CAPSTAN_METRICS_TOKEN;
    resetEnvCache();
    try {
      const off = await scrape({ authorization: `Bearer ${TOKEN}` });
      expect(off.status).toBe(404);
      expect(off.headers.get("content-type")).toBe("application/problem+json");
    } finally {
      process.env.CAPSTAN_METRICS_TOKEN = TOKEN;
      resetEnvCache();
    }
  });

  it("CAPSTAN_METRICS_LISTEN: a listener of its own serves /metrics without a token, and nothing else", async () => {
    const at = await startMetricsListener();
    expect(at).toMatch(/^127\.0\.0\.1:\d+$/);
    const ok = await fetch(`http://${at}/metrics`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("capstan_bridge_request_duration_seconds_bucket");
    expect((await fetch(`http://${at}/v1/workspaces`)).status).toBe(404);
    expect((await fetch(`http://${at}/metrics`, { method: "POST" })).status).toBe(404);
  });
});
