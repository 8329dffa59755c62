import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/server/platform/env";
import { closeSharedLimits, rateLimitStats, resetLocalLimits, takeShared } from "@/server/platform/shared-rate-limit";
import { bootBridgeApp, bridge, kvCapability, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";
import { checkedFetch } from "./support/openapi-responses";
import { startServer, stopServer, type TServer } from "./support/spawn-server";

/**
 * Limits that hold across replicas (issue #23 part 3): two real server
 * processes share one Bridge rate limit through Redis (127.0.0.1:6379), and a
 * Redis that is down or silent falls back to per-process limits at once,
 * counted, never hanging the request.
 *
 * Tolerance (README "Running more than one replica"): shared mode counts
 * `rate` calls per 1-second fixed window, so over T seconds at most
 * rate x (ceil(T) + 1) calls pass, whichever replicas they reach.
 */
const REDIS_URL = "redis://127.0.0.1:6379";
const RATE = 5;
const servers: TServer[] = [];
let setup: TBridgeSetup;

function setEnv(vars: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
}

beforeAll(async () => {
  await bootBridgeApp();
  setup = await setupBridge({ capabilities: [kvCapability()] });
  const limits = {
    CAPSTAN_BRIDGE_RATE_PER_SEC: String(RATE),
    CAPSTAN_BRIDGE_BURST: String(RATE),
    CAPSTAN_REDIS_URL: REDIS_URL,
  };
  servers.push(...(await Promise.all([startServer(limits), startServer(limits)])));
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map(stopServer));
  await closeSharedLimits();
  setEnv({ CAPSTAN_REDIS_URL: undefined, CAPSTAN_BRIDGE_RATE_PER_SEC: undefined, CAPSTAN_BRIDGE_BURST: undefined });
});

describe("a Bridge rate limit shared by two server processes through Redis", () => {
  it("calls alternating between the replicas pass at the shared rate, not twice it", async () => {
    const [a, b] = servers as [TServer, TServer];
    const kvGet = async (s: TServer) => {
      const res = await checkedFetch(`http://127.0.0.1:${s.port}/v1/capabilities/data.kv/get`, {
        method: "POST",
        headers: { authorization: `Bearer ${setup.token}`, "content-type": "application/json" },
        body: JSON.stringify({ key: "/app/x" }),
      });
      await res.arrayBuffer();
      return res;
    };
    // Both replicas up and connected to Redis (a first call may still be on the process's own bucket).
    for (const s of [a, b]) expect((await kvGet(s)).status).toBe(200);

    const counts = { a: { ok: 0, limited: 0 }, b: { ok: 0, limited: 0 } };
    const started = Date.now();
    let i = 0;
    while (Date.now() - started < 4_000) {
      const which = i++ % 2 === 0 ? "a" : "b";
      const res = await kvGet(which === "a" ? a : b);
      if (res.status === 200) counts[which].ok++;
      else {
        expect(res.status).toBe(429);
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        counts[which].limited++;
      }
    }
    const seconds = (Date.now() - started) / 1000;
    const passed = counts.a.ok + counts.b.ok;
    console.info(
      `shared limit: ${passed} of ${i} calls passed in ${seconds.toFixed(2)} s at ${RATE}/s (a ${counts.a.ok}, b ${counts.b.ok})`,
    );
    // Enough calls were offered that two independent per-process limits would have let through
    // at least 2 x RATE x floor(T), more than the shared bound below (the machine may be loaded: a low rate).
    expect(i).toBeGreaterThan(3 * RATE * seconds);
    expect(passed).toBeLessThanOrEqual(RATE * (Math.ceil(seconds) + 1));
    expect(passed).toBeGreaterThanOrEqual(RATE * Math.floor(seconds) - 2); // the two warm-up calls may share the first window
    // Per process each replica alone would have let ~RATE x seconds through; both served and both refused.
    for (const c of [counts.a, counts.b]) {
      expect(c.ok).toBeGreaterThan(0);
      expect(c.limited).toBeGreaterThan(0);
    }
  });
});

describe("Redis unreachable: per-process limits, counted, no hang", () => {
  async function timed(n: number, key: string) {
    const results: number[] = [];
    let slowest = 0;
    for (let k = 0; k < n; k++) {
      const t0 = Date.now();
      results.push(await takeShared("test", key, { rate: 5, burst: 5 }));
      slowest = Math.max(slowest, Date.now() - t0);
    }
    return { results, slowest };
  }

  it("a refused connection falls back at once to the process's token bucket", async () => {
    setEnv({ CAPSTAN_REDIS_URL: "redis://127.0.0.1:1" });
    resetLocalLimits();
    const before = rateLimitStats().fallbacks;
    const { results, slowest } = await timed(8, `refused-${Date.now()}`);
    expect(results.slice(0, 5)).toEqual([0, 0, 0, 0, 0]); // the burst, in process
    expect(results.slice(5).every((w) => w >= 1)).toBe(true);
    expect(slowest).toBeLessThan(200);
    expect(rateLimitStats()).toMatchObject({ mode: "redis", redisReady: false });
    expect(rateLimitStats().fallbacks - before).toBe(8);
  });

  it("a Redis that accepts connections but never answers does not hang a Bridge call", async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      setEnv({ CAPSTAN_REDIS_URL: `redis://127.0.0.1:${(silent.address() as AddressInfo).port}` });
      const before = rateLimitStats().fallbacks;
      const { slowest } = await timed(3, `silent-${Date.now()}`);
      expect(slowest).toBeLessThan(500);
      const t0 = Date.now();
      const r = await bridge(setup.token, "data.kv", "get", { key: "/app/x" });
      expect(r.status).toBe(200);
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(rateLimitStats().fallbacks - before).toBeGreaterThanOrEqual(4);
    } finally {
      await closeSharedLimits();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it("a Redis that is connected but stops answering costs at most CAPSTAN_REDIS_TIMEOUT_MS per check, then falls back", async () => {
    // Speaks just enough RESP to pass ioredis's ready check (INFO), then never answers a command.
    const sockets: net.Socket[] = [];
    const stalled = net.createServer((sock) => {
      sockets.push(sock);
      sock.on("data", (d) => {
        // One reply per command, in order: CLIENT SETINFO -> OK, INFO -> the server section, anything else -> silence.
        for (const cmd of d
          .toString("latin1")
          .split(/(?=\*\d+\r\n)/)
          .filter(Boolean)) {
          const name = cmd.split("\r\n")[2]?.toLowerCase();
          if (name === "client") sock.write("+OK\r\n");
          else if (name === "info") {
            const info = "# Server\r\nredis_version:7.2.0\r\nloading:0\r\n";
            sock.write(`$${Buffer.byteLength(info)}\r\n${info}\r\n`);
          } else return;
        }
      });
    });
    await new Promise<void>((r) => stalled.listen(0, "127.0.0.1", r));
    try {
      setEnv({
        CAPSTAN_REDIS_URL: `redis://127.0.0.1:${(stalled.address() as AddressInfo).port}`,
        CAPSTAN_REDIS_TIMEOUT_MS: "100",
      });
      const key = `stalled-${Date.now()}`;
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && !rateLimitStats().redisReady) {
        await takeShared("test", key, { rate: 5, burst: 5 });
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(rateLimitStats().redisReady).toBe(true);
      const before = rateLimitStats().fallbacks;
      const t0 = Date.now();
      expect(await takeShared("test", `${key}-2`, { rate: 5, burst: 5 })).toBe(0);
      const took = Date.now() - t0;
      expect(took).toBeGreaterThanOrEqual(90); // it did wait for Redis...
      expect(took).toBeLessThan(600); // ...but only about the command timeout
      expect(rateLimitStats().fallbacks).toBe(before + 1);
    } finally {
      await closeSharedLimits();
      setEnv({ CAPSTAN_REDIS_TIMEOUT_MS: undefined });
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => stalled.close(() => r()));
    }
  });

  it("back on a reachable Redis, checks are shared again", async () => {
    setEnv({ CAPSTAN_REDIS_URL: REDIS_URL });
    const key = `back-${Date.now()}`;
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && !rateLimitStats().redisReady) {
      await takeShared("test", key, { rate: 5, burst: 5 });
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(rateLimitStats().redisReady).toBe(true);
    const sharedBefore = rateLimitStats().shared;
    await takeShared("test", `${key}-2`, { rate: 5, burst: 5 });
    expect(rateLimitStats().shared).toBe(sharedBefore + 1);
  });
});
