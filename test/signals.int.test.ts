import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { alive, freePort, status, until } from "./support/procs";

/**
 * SIGTERM sent to the top process only, as a container runtime sends it to
 * PID 1: `npm run worker` (npm exits at once without relaying the signal; the
 * worker notices its parent is gone, scripts/follow-parent.mjs) drains like a
 * worker signalled directly: its /readyz turns 503 first, the webhook request
 * in flight finishes and is recorded (its claim released), its connections
 * close and it logs its exit 0. The production commands from an
 * `npm ci --omit=dev` install are test/production-artifact.int.test.ts.
 * Needs PostgreSQL (a worker process shares this file's database).
 */
process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "1";
resetEnvCache();
const ROOT = path.resolve(import.meta.dirname, "..");
const postgres = !!process.env.DATABASE_URL;
let owner: TTestUser;
const children: ChildProcess[] = [];
const servers: http.Server[] = [];

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
});

afterAll(async () => {
  for (const c of children) {
    try {
      process.kill(-c.pid!, "SIGKILL");
    } catch {
      // gone already
    }
  }
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

describe.skipIf(!postgres)("SIGTERM to `npm run worker` only", () => {
  it("the worker behind npm drains: readiness drops first, the request in flight finishes and is recorded, connections close, exit 0", async () => {
    const ws = await makeWorkspace(owner.token, "signals worker");
    // A webhook endpoint that holds its answer until the test lets it go.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const received: string[] = [];
    const receiver = http.createServer((req, res) => {
      received.push(String(req.headers["webhook-id"]));
      req.resume();
      void released.then(() => res.writeHead(200).end());
    });
    servers.push(receiver);
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const sub = await api("POST", `/v1/workspaces/${ws.id}/event-subscriptions`, {
      token: owner.token,
      body: { url, event_types: ["budget.changed"] },
    });
    expect(sub.status, sub.text).toBe(201);

    const [metricsPort, gatewayPort] = [await freePort(), await freePort()];
    const appName = `capstan-signals-${process.pid}`;
    const dbUrl = new URL(process.env.DATABASE_URL!);
    dbUrl.searchParams.set("application_name", appName);
    // `npm run worker` in its own process group (cleanup only; the test signals npm's pid alone).
    const npm = spawn("npm", ["run", "--silent", "worker"], {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        DATABASE_URL: dbUrl.toString(),
        CAPSTAN_ROLES: "worker,runner",
        CAPSTAN_METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
        CAPSTAN_RUNNER_LISTEN: `127.0.0.1:${gatewayPort}`,
        CAPSTAN_RUNNER_DIR: mkdtempSync(path.join(os.tmpdir(), "capstan-signals-runner-")),
        CAPSTAN_WORKER_POLL_MS: "50",
        CAPSTAN_WEBHOOK_ALLOW_PRIVATE: "1",
        CAPSTAN_WEBHOOK_TIMEOUT_MS: "15000",
        CAPSTAN_SHUTDOWN_GRACE_MS: "20000",
        LOG_LEVEL: "info",
      },
    });
    children.push(npm);
    const output: string[] = [];
    npm.stdout.on("data", (c: Buffer) => output.push(c.toString()));
    npm.stderr.on("data", (c: Buffer) => output.push(c.toString()));
    const npmExit = new Promise<void>((resolve) => npm.once("exit", () => resolve()));
    const log = () => output.join("");

    await until("the worker process to start", () => /"msg":"worker\.process_started"/.test(log()), 60_000);
    const workerPid = Number(
      /"msg":"worker\.process_started"[^\n]*"pid":(\d+)/.exec(log())?.[1] ??
        /"pid":(\d+)[^\n]*"msg":"worker\.process_started"/.exec(log())?.[1],
    );
    expect(workerPid, log()).toBeGreaterThan(0);
    expect(workerPid, "npm runs the worker in a process of its own").not.toBe(npm.pid);
    const metrics = `http://127.0.0.1:${metricsPort}`;
    const gateway = `http://127.0.0.1:${gatewayPort}`;
    await until("worker /readyz 200", async () => (await status(`${metrics}/readyz`)) === 200);
    expect(await status(`${metrics}/healthz`)).toBe(200);
    expect(await status(`${gateway}/readyz`), "the runner gateway answers probes without its key").toBe(200);
    expect(await status(`${gateway}/healthz`)).toBe(200);

    const budget = await api("PUT", `/v1/workspaces/${ws.id}/budgets/ai_tokens`, {
      token: owner.token,
      body: { limit_units: 11 },
    });
    expect(budget.status, budget.text).toBe(200);
    await until("the webhook request to be in flight", () => received.length === 1, 20_000);

    npm.kill("SIGTERM");
    await npmExit;
    // The worker was left behind by npm, and notices.
    await until("worker /readyz 503", async () => (await status(`${metrics}/readyz`)) === 503, 5_000, 20);
    expect(await status(`${gateway}/readyz`)).toBe(503);
    expect(alive(workerPid), "still draining while its request is in flight").toBe(true);
    const leased = await db().webhookDelivery.findFirstOrThrow({ where: { subscriptionId: sub.json.id } });
    expect(leased.status).toBe("pending");
    expect(leased.lockedUntil, "claimed while in flight").not.toBeNull();

    release();
    await until("the worker to exit", () => !alive(workerPid), 25_000);
    expect(log()).toMatch(/"msg":"worker\.draining"/);
    expect(log()).toMatch(/"exit_code":0[^\n]*"msg":"worker\.stopped"/);
    expect(log(), "no errors while draining").not.toMatch(/"level":"error"/);
    const done = await db().webhookDelivery.findUniqueOrThrow({
      where: { id: leased.id },
      include: { attempts: true },
    });
    expect(done.status).toBe("delivered");
    expect(done.lockedUntil, "claim released").toBeNull();
    expect(done.attempts.map((a) => a.statusCode)).toEqual([200]);
    expect(received).toHaveLength(1);
    const conns = await db().$queryRaw<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${appName}`;
    expect(conns[0]!.n, "its connections are closed").toBe(0);
  }, 120_000);
});
