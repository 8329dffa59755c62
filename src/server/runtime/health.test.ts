import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { waitHealthy } from "./health";

/** An app on a Unix socket that begins listening after `listenAfterMs` and then answers `status`. */
function slowApp(listenAfterMs: number, status: number) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "health-"));
  const socketPath = path.join(dir, "ingress.sock");
  const server = http.createServer((_req, res) => res.writeHead(status).end());
  const timer = setTimeout(() => server.listen(socketPath), listenAfterMs);
  return {
    socketPath,
    close: () => {
      clearTimeout(timer);
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe("waitHealthy", () => {
  const apps: { close: () => void }[] = [];
  afterEach(() => {
    for (const a of apps.splice(0)) a.close();
  });
  /** Starts the app (closed after the test) and checks its health with these deadlines. */
  const check = (app: { listenAfterMs: number; status: number }, deadlineMs: number, listenFloorMs?: number) => {
    const a = slowApp(app.listenAfterMs, app.status);
    apps.push(a);
    return waitHealthy({
      socketPath: a.socketPath,
      path: "/",
      deadlineMs,
      listenFloorMs,
      alive: async () => true,
      intervalMs: 50,
    });
  };

  it("fails an app that begins listening after its deadline, without a floor", async () => {
    const r = await check({ listenAfterMs: 900, status: 200 }, 300);
    expect(r.ok).toBe(false);
    expect(r.attempts.every((a) => a.status === null)).toBe(true);
  });

  it("gives a slow starter the floor to begin answering, and passes it when it answers 2xx", async () => {
    const r = await check({ listenAfterMs: 900, status: 200 }, 300, 5_000);
    expect(r.ok).toBe(true);
    expect(r.waitedMs).toBeGreaterThanOrEqual(850);
    expect(r.waitedMs).toBeLessThan(5_000);
  });

  it("once the app answers, counts its own deadline from that answer: a 404 fails long before the floor", async () => {
    const r = await check({ listenAfterMs: 600, status: 404 }, 400, 20_000);
    expect(r.ok).toBe(false);
    expect(r.exited).toBe(false);
    expect(r.attempts.at(-1)!.status).toBe(404);
    // Listened at ~0.6 s, then 0.4 s of 404s: nowhere near the 20 s floor.
    expect(r.waitedMs).toBeGreaterThanOrEqual(900);
    expect(r.waitedMs).toBeLessThan(10_000);
  });

  it("an app that never listens waits out the floor", async () => {
    const r = await check({ listenAfterMs: 60_000, status: 200 }, 100, 1_200);
    expect(r.ok).toBe(false);
    expect(r.waitedMs).toBeGreaterThanOrEqual(1_150);
  });
});
