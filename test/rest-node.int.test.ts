import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRestNode } from "@/server/http/rest-node";
import { db } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { runner } from "@/server/runtime";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";

/**
 * The `npm start` server hands `POST /v1/sessions/{ses}/invocations` to
 * rest-node.ts, which gives handleRest the body it already read and writes
 * the response text it is handed back (no web streams either way). The same
 * request through it and through handleRest (what the Next.js route calls)
 * gets the same answer: an admitted invocation, and every bad input.
 */
let owner: TTestUser;
let stranger: TTestUser;
let ses: string;
let server: http.Server;
let base: string;

beforeAll(async () => {
  await bootBridgeApp();
  [owner, stranger] = await Promise.all([makeUser(), makeUser()]);
  const ws = (await makeWorkspace(owner.token)).id;
  await makeWorkspace(stranger.token);
  const app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
  const dep = await deploy(owner, ws, app.revisionId);
  if (dep.status !== "active") throw new Error(JSON.stringify(dep));
  ses = must(
    await api("POST", "/v1/sessions", { token: owner.token, body: { surface_id: dep.surface_id } }),
    201,
    "s",
  ).id;
  server = http.createServer((req, res) => {
    if (!serveRestNode(req, res)) res.writeHead(599).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await runner().sweep(async () => new Set());
});

type TSent = {
  token?: string;
  body?: string | Buffer;
  contentType?: string;
  path?: string;
  method?: string;
  headers?: Record<string, string>;
};

/** The same request through the Node path (a real socket) and through handleRest. */
async function both(s: TSent) {
  const path = s.path ?? `/v1/sessions/${ses}/invocations`;
  const headers: Record<string, string> = { ...s.headers };
  if (s.token) headers.authorization = `Bearer ${s.token}`;
  if (s.contentType) headers["content-type"] = s.contentType;
  const res = await fetch(base + path, { method: s.method ?? "POST", headers, body: s.body as BodyInit | undefined });
  const text = await res.text();
  const node = { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
  const direct = await api(s.method ?? "POST", path, {
    token: s.token,
    rawBody: typeof s.body === "string" ? new TextEncoder().encode(s.body) : s.body,
    headers: { ...s.headers, ...(s.contentType ? { "content-type": s.contentType } : {}) },
  });
  return { node, direct };
}

const invocation = JSON.stringify({ kind: "http_request", method: "GET", path: "/health", body_evidence: null });

describe("the Node path of an invocation answers as handleRest does", () => {
  it("an admitted invocation: 201, the same record shape, timing headers, an exact content-length", async () => {
    // A client's evt_ correlation id is adopted (platform/correlation.ts): it must cross the Node path's headers.
    const correlation = newId("evt");
    const { node, direct } = await both({
      token: owner.token,
      body: invocation,
      contentType: "application/json",
      headers: { "x-correlation-id": correlation },
    });
    expect(node.status).toBe(201);
    expect(direct.status).toBe(201);
    expect(node.json.admission.outcome).toBe("admitted");
    expect(node.json.execution.result.http_status).toBe(200);
    expect(Object.keys(node.json).sort()).toEqual(Object.keys(direct.json).sort());
    // One session, two invocations: the sequence goes on.
    expect(direct.json.sequence).toBe(node.json.sequence + 1);
    expect(node.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Number(node.headers.get("content-length"))).toBe(Buffer.byteLength(node.text));
    expect(node.headers.get("server-timing")).toMatch(/record;dur=/);
    expect(node.headers.get("x-correlation-id")).toBe(correlation);
    const row = await db().invocation.findUnique({ where: { id: node.json.id }, select: { correlationId: true } });
    expect(row?.correlationId).toBe(correlation);
  });

  it("bad input: the same status and reason either way, nothing admitted", async () => {
    const max = env().CAPSTAN_MAX_BODY_BYTES;
    const cases: Array<[string, TSent, number]> = [
      ["no bearer", { body: invocation, contentType: "application/json" }, 401],
      ["not JSON", { token: owner.token, body: "{kind:", contentType: "application/json" }, 400],
      ["not a JSON content type", { token: owner.token, body: invocation, contentType: "text/plain" }, 415],
      ["an empty body", { token: owner.token, contentType: "application/json" }, 422],
      [
        "a wrong field",
        { token: owner.token, body: '{"kind":"http_request","method":7}', contentType: "application/json" },
        422,
      ],
      [
        "a NUL in a string",
        { token: owner.token, body: '{"kind":"http_request\\u0000"}', contentType: "application/json" },
        400,
      ],
      [
        "past the body limit",
        { token: owner.token, body: Buffer.alloc(max + 10, 0x20), contentType: "application/json" },
        413,
      ],
      [
        "another workspace's session",
        { token: stranger.token, body: invocation, contentType: "application/json" },
        404,
      ],
      [
        "a session that does not exist",
        {
          token: owner.token,
          body: invocation,
          contentType: "application/json",
          path: "/v1/sessions/ses_00000000000000000000000000/invocations",
        },
        404,
      ],
    ];
    for (const [what, sent, status] of cases) {
      const { node, direct } = await both(sent);
      expect([what, node.status]).toEqual([what, status]);
      expect([what, direct.status]).toEqual([what, status]);
      expect(node.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect([what, node.json.reason]).toEqual([what, direct.json.reason]);
    }
    // Nothing of the refused requests was recorded: the first test's two invocations only.
    const list = must(await api("GET", `/v1/sessions/${ses}/invocations`, { token: owner.token }), 200, "list");
    expect(list.items).toHaveLength(2);
  });

  it("leaves every other request to Next.js", async () => {
    const res = await fetch(`${base}/v1/sessions/${ses}/invocations`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(res.status).toBe(599);
    const other = await fetch(`${base}/v1/sessions`, { method: "POST", body: "{}" });
    expect(other.status).toBe(599);
  });
});
