import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/platform/db/client";
import { bootApp, makeUser, type TTestUser } from "./support/api";
import { expectShape, idRegex, Problem } from "./support/spec-schemas";
import { startServer, stopServer, type TServer } from "./support/spawn-server";
import { checkedFetch } from "./support/openapi-responses";

/**
 * Idempotency-Key across server processes (design: "the claim is a database
 * row, so several server processes on one database run a request once").
 * Two real HTTP server processes share this file's database, master key and
 * data directory; the same POST /v1/workspaces with the same key and body is
 * fired at both at once.
 */

const servers: TServer[] = [];
let user: TTestUser;

type THttp = { status: number; headers: Headers; json: any; text: string }; // eslint-disable-line @typescript-eslint/no-explicit-any

async function post(port: number, key: string, body: unknown): Promise<THttp> {
  const res = await checkedFetch(`http://127.0.0.1:${port}/v1/workspaces`, {
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
  servers.push(...(await Promise.all([startServer(), startServer()])));
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map(stopServer));
});

describe("Idempotency-Key across two server processes", () => {
  it("both processes serve the same authenticated API", async () => {
    for (const s of servers) {
      const res = await checkedFetch(`http://127.0.0.1:${s.port}/v1/workspaces`, {
        headers: { authorization: `Bearer ${user.token}` },
      });
      expect(res.status, s.output.join("")).toBe(200);
      const unauth = await checkedFetch(`http://127.0.0.1:${s.port}/v1/workspaces`);
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
      outcomes.push(
        responses
          .map((r) => (r.status === 409 ? "409" : r.headers.get("idempotent-replayed") ? "201r" : "201"))
          .join("+"),
      );
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
