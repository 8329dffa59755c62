import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateRequest } from "@/server/domain/identity/authenticate";
import { handleTrpc } from "@/server/http/trpc-handler";
import { newId } from "@/server/platform/ids";
import type { AppRouter } from "@/server/trpc/root";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { expectShape, Problem } from "./support/spec-schemas";

/**
 * Issue #15 item 3: the console's tRPC transport over real HTTP answers the
 * status REST answers for the same failure (it used to be 500 for every
 * domain error), with the problem document in `data.problem` and its detail
 * as the message. The server is node:http around the same framework-free
 * handler the Next.js route calls; the principal comes from a bearer token
 * here instead of the session cookie.
 */
let server: http.Server;
let base: string;
let owner: TTestUser;
let stranger: TTestUser;
let ws: string;

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
  stranger = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  server = http.createServer((req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as unknown as ReadableStream) : undefined,
      duplex: "half",
    } as RequestInit);
    void handleTrpc(request, async () => (await authenticateRequest(headers.get("authorization"))).principal).then(
      async (r) => {
        res.writeHead(r.status, Object.fromEntries(r.headers));
        res.end(Buffer.from(await r.arrayBuffer()));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/trpc`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function client(token?: string) {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: base, headers: token ? { authorization: `Bearer ${token}` } : {} })],
  });
}

/** Calls a procedure, expecting a failure; returns its HTTP status (from the wire), problem and message. */
async function failure(call: () => Promise<unknown>) {
  try {
    await call();
  } catch (err) {
    expect(err).toBeInstanceOf(TRPCClientError);
    const e = err as TRPCClientError<AppRouter>;
    const data = e.data as { httpStatus: number; problem: unknown; code: string };
    return {
      status: data.httpStatus,
      code: data.code,
      problem: expectShape(Problem, data.problem),
      message: e.message,
    };
  }
  throw new Error("expected the call to fail");
}

describe("tRPC over HTTP answers the REST status for expected errors", () => {
  it("not signed in: 401 on the wire, with its WWW-Authenticate challenge, as on REST", async () => {
    const raw = await fetch(`${base}/workspaces.list?input=${encodeURIComponent("{}")}`);
    expect(raw.status).toBe(401);
    expect(raw.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const f = await failure(() => client().workspaces.list.query({}));
    expect(f.status).toBe(401);
    expect(f.code).toBe("UNAUTHORIZED");
    expect((await api("GET", "/v1/workspaces")).status).toBe(401);
  });

  it("not a member: 403; not found: 404; conflict: 409; validation: 422; hostile input: 400; each as REST", async () => {
    const cases: { label: string; trpc: () => Promise<unknown>; rest: () => ReturnType<typeof api>; status: number }[] =
      [
        {
          label: "forbidden",
          status: 403,
          trpc: () => client(stranger.token).workspaces.get.query({ ws }),
          rest: () => api("GET", `/v1/workspaces/${ws}`, { token: stranger.token }),
        },
        {
          label: "not found",
          status: 404,
          trpc: () => client(owner.token).webhooks.get.query({ ws, wb: newId("wb") }),
          rest: () => api("GET", `/v1/workspaces/${ws}/event-subscriptions/${newId("wb")}`, { token: owner.token }),
        },
        {
          label: "conflict (the last owner cannot step down)",
          status: 409,
          trpc: () => client(owner.token).workspaces.putMember.mutate({ ws, usr: owner.userId, role: "viewer" }),
          rest: () =>
            api("PUT", `/v1/workspaces/${ws}/members/${owner.userId}`, {
              token: owner.token,
              body: { role: "viewer" },
            }),
        },
        {
          label: "validation",
          status: 422,
          trpc: () => client(owner.token).workspaces.create.mutate({ name: "" }),
          rest: () => api("POST", "/v1/workspaces", { token: owner.token, body: { name: "" } }),
        },
        {
          label: "hostile input",
          status: 400,
          trpc: () => client(owner.token).workspaces.create.mutate({ name: "a\u0000b" }),
          rest: () => api("POST", "/v1/workspaces", { token: owner.token, body: { name: "a\u0000b" } }),
        },
      ];
    for (const c of cases) {
      const rest = await c.rest();
      expect(rest.status, `${c.label} (REST): ${rest.text}`).toBe(c.status);
      const f = await failure(c.trpc);
      expect(f.status, c.label).toBe(c.status);
      expect(f.problem.status).toBe(c.status);
      expect(f.problem.code).toBe((rest.json as { code: string }).code);
      // One clear message: the problem's detail, not the zod issue dump or a generic 500 text.
      expect(f.message).toBe(f.problem.detail);
      expect(f.message).not.toMatch(/^\[|"code":|internal error/i);
    }
  });

  it("the HTTP status line itself carries the status (not 500, not 200)", async () => {
    const res = await fetch(
      `${base}/webhooks.get?input=${encodeURIComponent(JSON.stringify({ ws, wb: newId("wb") }))}`,
      {
        headers: { authorization: `Bearer ${owner.token}` },
      },
    );
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { data: { problem: unknown } } };
    expect(expectShape(Problem, body.error.data.problem).code).toBe("not_found");
  });
});
