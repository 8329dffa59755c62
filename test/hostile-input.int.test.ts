import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { handleBridge } from "./support/handlers";
import { api, BASE_URL, makeUser, makeWorkspace, type TApiResult, type TTestUser } from "./support/api";
import {
  addAiProvider,
  bootBridgeApp,
  bridge,
  kvCapability,
  setupBridge,
  type TBridgeSetup,
} from "./support/bridge-fixtures";
import { expectShape, Problem } from "./support/spec-schemas";

/**
 * Issue #15 item 2: input that used to reach a 500. NUL characters and
 * unpaired surrogates in any string (PostgreSQL text/jsonb cannot hold them),
 * JSON nested deep enough to overflow the validator, malformed escapes in the
 * path, and concurrent deletes of one resource. Each is a 4xx problem naming
 * the field, and nothing is written.
 */
let s: TBridgeSetup;
let u: TTestUser;

beforeAll(async () => {
  await bootBridgeApp();
  s = await setupBridge({ capabilities: [kvCapability()] });
  u = await makeUser();
});

afterEach(() => {
  vi.restoreAllMocks();
});

function expectFieldProblem(r: TApiResult, status: number, path: string, reason?: string) {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const p = expectShape(Problem, r.json);
  if (reason) expect(p.reason).toBe(reason);
  expect(
    p.errors?.map((e) => e.path),
    r.text,
  ).toContain(path);
  expect(r.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

const HOSTILE = [
  ["NUL", "a\u0000b"],
  ["lone high surrogate", "a\ud800b"],
  ["lone low surrogate", "\udc00"],
  ["reversed pair", "\udc00\ud800"],
] as const;

async function workspaceCount(userId: string): Promise<number> {
  return db().membership.count({ where: { userId } });
}

describe("strings a text column cannot hold", () => {
  for (const [label, bad] of HOSTILE) {
    it(`REST body (${label}) is 400 naming the field; nothing is written`, async () => {
      const before = await workspaceCount(u.userId);
      const auditBefore = await db().auditRecord.count();
      const r = await api("POST", "/v1/workspaces", { token: u.token, body: { name: bad } });
      expectFieldProblem(r, 400, "/name", "invalid_string");
      // Escaped in the JSON text too (a client that writes \ud800 itself).
      const raw = await api("POST", "/v1/workspaces", {
        token: u.token,
        rawBody: `{"name":${JSON.stringify(bad).replace(/[\ud800-\udfff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"))}}`,
        headers: { "content-type": "application/json" },
      });
      expectFieldProblem(raw, 400, "/name", "invalid_string");
      expect(await workspaceCount(u.userId)).toBe(before);
      expect(await db().auditRecord.count()).toBe(auditBefore);
    });

    it(`Bridge data.kv key, value and member name (${label}) are 400 naming the field; nothing is written`, async () => {
      const before = await db().kvEntry.count({ where: { workspaceId: s.ws } });
      expectFieldProblem(
        await bridge(s.token, "data.kv", "set", { key: `/app/${bad}`, value: 1 }),
        400,
        "/key",
        "invalid_string",
      );
      expectFieldProblem(
        await bridge(s.token, "data.kv", "set", { key: "/app/v", value: { nested: [bad] } }),
        400,
        "/value/nested/0",
        "invalid_string",
      );
      const member = await bridge(s.token, "data.kv", "set", { key: "/app/m", value: { [bad]: 1 } });
      expect(member.status, member.text).toBe(400);
      expect(member.json.errors[0].path).toMatch(/^\/value\//);
      expectFieldProblem(
        await bridge(s.token, "data.kv", "list", { prefix: `/app/${bad}` }),
        400,
        "/prefix",
        "invalid_string",
      );
      expect(await db().kvEntry.count({ where: { workspaceId: s.ws } })).toBe(before);
    });
  }

  it("a NUL in a query parameter is 400 naming the parameter", async () => {
    const r = await api("GET", "/v1/workspaces?cursor=%00abc", { token: u.token });
    expectFieldProblem(r, 400, "/cursor", "invalid_string");
  });

  it("astral characters (paired surrogates) and other unusual but valid text still work", async () => {
    const r = await api("POST", "/v1/workspaces", { token: u.token, body: { name: "emoji 😀 \u2028 ok" } });
    expect(r.status, r.text).toBe(201);
    expect(r.json.name).toBe("emoji 😀 \u2028 ok");
  });
});

describe("deeply nested JSON", () => {
  const deep = (n: number, leaf = "1") => "[".repeat(n) + leaf + "]".repeat(n);

  it("REST: 100 000 levels are a 400 naming where the limit was passed; nothing is written", async () => {
    const before = await workspaceCount(u.userId);
    const r = await api("POST", "/v1/workspaces", {
      token: u.token,
      rawBody: `{"name":${deep(100_000)}}`,
      headers: { "content-type": "application/json" },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.reason).toBe("nesting_too_deep");
    expect(r.json.errors[0].path).toMatch(/^\/name\/0\/0/);
    expect(await workspaceCount(u.userId)).toBe(before);
  });

  it("Bridge: a deep data.kv value (z.json would recurse) is a 400, not a stack overflow", async () => {
    const before = await db().kvEntry.count({ where: { workspaceId: s.ws } });
    const r = await bridge(s.token, "data.kv", "set", `{"key":"/app/deep","value":${deep(100_000)}}`);
    expect(r.status, r.text).toBe(400);
    expect(r.json.reason).toBe("nesting_too_deep");
    expect(r.json.errors[0].path).toMatch(/^\/value\/0/);
    expect(await db().kvEntry.count({ where: { workspaceId: s.ws } })).toBe(before);
  });

  it("moderate nesting within the limit is stored as sent", async () => {
    const value = JSON.parse(deep(40, '"leaf"'));
    const r = await bridge(s.token, "data.kv", "set", { key: "/app/nested-ok", value });
    expect(r.status, r.text).toBe(200);
    const got = await bridge(s.token, "data.kv", "get", { key: "/app/nested-ok" });
    expect(got.json.output.value).toEqual(value);
  });
});

describe("malformed percent-encoding in the path", () => {
  it("REST answers 4xx problems, never 5xx", async () => {
    const ws = await makeWorkspace(u.token);
    for (const path of [
      `/v1/workspaces/${ws.id}%ZZ`,
      "/v1/workspaces/%E0%A4%A",
      "/v1/workspaces/%",
      `/v1/workspaces/${ws.id}/members/%ED%A0%80`,
      "/v1/%C0%AF",
    ]) {
      const r = await api("GET", path, { token: u.token });
      expect(r.status, `${path}: ${r.text}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${path}: ${r.text}`).toBeLessThan(500);
      expectShape(Problem, r.json);
    }
  });

  it("the Bridge answers 404 problems for undecodable capability and action names", async () => {
    for (const [capability, action] of [
      ["data.kv%ZZ", "get"],
      ["%E0%A4%A", "get"],
      ["data.kv", "%ED%A0%80"],
    ] as const) {
      const res = await handleBridge(
        new Request(`${BASE_URL}/v1/capabilities/${capability}/${action}`, {
          method: "POST",
          headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
          body: "{}",
        }),
        capability,
        action,
      );
      expect(res.status).toBe(404);
      expectShape(Problem, await res.json());
    }
  });
});

describe("two concurrent deletes of one resource", () => {
  /** Fires `n` identical requests at once: exactly one may win, the rest get 404/409 (or the idempotent 2xx), never 5xx. */
  async function race(method: string, path: string, token: string, n = 6): Promise<number[]> {
    const results = await Promise.all(Array.from({ length: n }, () => api(method, path, { token })));
    for (const r of results) {
      expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(500);
      if (r.status >= 400) expect([404, 409], r.text).toContain(r.status);
    }
    return results.map((r) => r.status);
  }

  it("webhook endpoints: one 204, the losers 404", async () => {
    for (let i = 0; i < 3; i++) {
      const created = await api("POST", `/v1/workspaces/${s.ws}/event-subscriptions`, {
        token: s.owner.token,
        body: { url: "https://hooks.example.com/capstan", event_types: ["workspace.created"] },
      });
      expect(created.status, created.text).toBe(201);
      const statuses = await race(
        "DELETE",
        `/v1/workspaces/${s.ws}/event-subscriptions/${created.json.id}`,
        s.owner.token,
      );
      expect(statuses.filter((x) => x === 204)).toHaveLength(1);
      expect(await db().eventSubscription.count({ where: { id: created.json.id } })).toBe(0);
    }
  });

  it("service identities and provider bindings: concurrent revokes never 5xx", async () => {
    const other = await setupBridge({ owner: s.owner, ws: s.ws, capabilities: [kvCapability()] });
    await race("DELETE", `/v1/workspaces/${s.ws}/service-identities/${other.svc.id}`, s.owner.token);
    const { bindingId } = await addAiProvider(s.owner, s.ws, {
      provider: "openai",
      apiKey: "sk-race-0123456789",
      baseUrl: "http://127.0.0.1:9/v1",
    });
    await race("DELETE", `/v1/workspaces/${s.ws}/provider-bindings/${bindingId}`, s.owner.token);
  });
});

describe("an unexpected failure", () => {
  it("answers a 500 problem without a stack trace and logs the stack once, at error level, with the correlation id", async () => {
    const client = db();
    vi.spyOn(client, "$transaction").mockRejectedValueOnce(new Error("boom: private detail"));
    const lines: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      lines.push(String(chunk));
      return original(chunk, ...(rest as []));
    });
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const correlationId = newId("evt");
    const r = await api("POST", "/v1/workspaces", {
      token: u.token,
      body: { name: "fails" },
      headers: { "x-correlation-id": correlationId },
    });
    expect(r.status, r.text).toBe(500);
    const p = expectShape(Problem, r.json);
    expect(p.correlation_id).toBe(correlationId);
    expect(r.text).not.toContain("boom");
    expect(r.text).not.toMatch(/\n\s+at |\.ts:\d+/);
    const logged = lines.filter((l) => l.includes(correlationId)).map((l) => JSON.parse(l) as Record<string, unknown>);
    const withStack = logged.filter((l) => String(l.error ?? "").includes("boom: private detail"));
    expect(withStack, JSON.stringify(logged)).toHaveLength(1);
    expect(withStack[0]!.level).toBe("error");
    expect(String(withStack[0]!.error)).toMatch(/\n\s+at /);
  });
});
