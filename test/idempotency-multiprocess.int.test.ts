import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/platform/db/client";
import { bootApp, makeUser, type TTestUser } from "./support/api";
import { expectShape, idRegex, Problem } from "./support/spec-schemas";

/**
 * Idempotency-Key across server processes (design: "the claim is a database
 * row, so several server processes on one database run a request once").
 * Two real HTTP server processes share this file's database, master key and
 * data directory; the same POST /v1/workspaces with the same key and body is
 * fired at both at once.
 */

const ROOT = path.resolve(__dirname, "..");
const SERVER = path.join(ROOT, "test", "support", "rest-server.ts");
const START_TIMEOUT_MS = 90_000;

type TServer = { child: ChildProcess; port: number; output: string[] };
const servers: TServer[] = [];
let user: TTestUser;

function startServer(): Promise<TServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", SERVER], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0", CAPSTAN_WORKERS: "0", LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const server: TServer = { child, port: 0, output: [] };
    servers.push(server);
    const timer = setTimeout(() => reject(new Error(`rest-server did not start in time:\n${server.output.join("")}`)), START_TIMEOUT_MS);
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      server.output.push(text);
      buffer += text;
      const m = /^listening (\d+)$/m.exec(buffer);
      if (m && !server.port) {
        server.port = Number(m[1]);
        clearTimeout(timer);
        resolve(server);
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => server.output.push(chunk.toString()));
    child.on("exit", (code, signal) => {
      if (!server.port) {
        clearTimeout(timer);
        reject(new Error(`rest-server exited (${code ?? signal}) before listening:\n${server.output.join("")}`));
      }
    });
  });
}

async function stopServer(s: TServer): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => s.child.once("exit", () => resolve()));
  s.child.kill("SIGTERM");
  const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 10_000));
  if ((await Promise.race([exited, timeout])) === "timeout") {
    s.child.kill("SIGKILL");
    await exited;
  }
}

type THttp = { status: number; headers: Headers; json: any; text: string }; // eslint-disable-line @typescript-eslint/no-explicit-any

async function post(port: number, key: string, body: unknown): Promise<THttp> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/workspaces`, {
    method: "POST",
    headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

beforeAll(async () => {
  // In-process boot first: the signing key and ws_platform exist before the servers start.
  await bootApp();
  user = await makeUser();
  await Promise.all([startServer(), startServer()]);
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map(stopServer));
});

describe("Idempotency-Key across two server processes", () => {
  it("both processes serve the same authenticated API", async () => {
    for (const s of servers) {
      const res = await fetch(`http://127.0.0.1:${s.port}/v1/workspaces`, { headers: { authorization: `Bearer ${user.token}` } });
      expect(res.status, s.output.join("")).toBe(200);
      const unauth = await fetch(`http://127.0.0.1:${s.port}/v1/workspaces`);
      expect(unauth.status).toBe(401);
      expect(unauth.headers.get("www-authenticate")).toMatch(/^Bearer realm="capstan"/);
    }
  });

  it("the same request fired at both processes at once creates exactly one workspace, never two ids", async () => {
    const [s1, s2] = servers as [TServer, TServer];
    const ROUNDS = 12;
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const key = `mp-${round}-${randomBytes(8).toString("hex")}`;
      const name = `multiprocess ${key}`;
      const body = { name };
      // Alternate which process is asked first.
      const targets = round % 2 === 0 ? [s1.port, s2.port] : [s2.port, s1.port];
      const responses = await Promise.all(targets.map((port) => post(port, key, body)));

      const ids = new Set<string>();
      let originals = 0;
      for (const r of responses) {
        expect([201, 409], `round ${round}: ${r.status} ${r.text}`).toContain(r.status);
        if (r.status === 201) {
          expect(r.json.id).toMatch(idRegex("ws"));
          ids.add(r.json.id);
          if (r.headers.get("idempotent-replayed") !== "true") originals++;
          else expect(r.headers.get("idempotent-replayed")).toBe("true");
        } else {
          const p = expectShape(Problem, r.json);
          expect(p.code).toBe("conflict");
          expect(p.reason).toBe("idempotency_in_flight");
        }
      }
      expect(ids.size, `round ${round}: two different ids ${[...ids].join(", ")}`).toBe(1);
      expect(originals, `round ${round}: exactly one response is the original`).toBe(1);
      expect(await db().workspace.count({ where: { name } }), `round ${round}`).toBe(1);

      // A request that met the in-flight claim gets the replay once the first completes.
      const [id] = [...ids];
      for (const [i, r] of responses.entries()) {
        if (r.status !== 409) continue;
        let retry = r;
        for (let attempt = 0; attempt < 50 && retry.status === 409; attempt++) {
          await new Promise((res) => setTimeout(res, 100));
          retry = await post(targets[i]!, key, body);
        }
        expect(retry.status, retry.text).toBe(201);
        expect(retry.headers.get("idempotent-replayed")).toBe("true");
        expect(retry.json.id).toBe(id);
      }

      const keys = await db().idempotencyKey.findMany({ where: { key, principalId: user.userId } });
      expect(keys).toHaveLength(1);
      expect(keys[0]!.state).toBe("completed");
      expect(await db().workspace.count({ where: { name } })).toBe(1);
      outcomes.push(responses.map((r) => (r.status === 409 ? "409" : r.headers.get("idempotent-replayed") ? "201r" : "201")).join("+"));
    }
    console.info(`multi-process idempotency outcomes: ${outcomes.join(", ")}`);
  });

  it("a different body with a key already used on the other process is 422 there", async () => {
    const [s1, s2] = servers as [TServer, TServer];
    const key = `mp-reuse-${randomBytes(8).toString("hex")}`;
    const first = await post(s1.port, key, { name: `reuse ${key}` });
    expect(first.status, first.text).toBe(201);
    const second = await post(s2.port, key, { name: `other ${key}` });
    expect(second.status, second.text).toBe(422);
    expect(expectShape(Problem, second.json).code).toBe("validation_failed");
    const replay = await post(s2.port, key, { name: `reuse ${key}` });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json.id).toBe(first.json.id);
    expect(await db().workspace.count({ where: { name: `other ${key}` } })).toBe(0);
  });
});
