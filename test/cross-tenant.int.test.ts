import { beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/server/http/openapi";
import { db } from "@/server/platform/db/client";
import { ID_PREFIXES, newId, type TIdPrefix } from "@/server/platform/ids";
import { api, BASE_URL, bootApp, makeUser, makeWorkspace, type TTestUser, type TTestWorkspace } from "./support/api";
import { expectShape, Problem } from "./support/spec-schemas";

/**
 * Tenant isolation: user B (owner of their own workspace) attacks user A's
 * workspace on EVERY operation whose path contains {ws}, as listed by the
 * published OpenAPI document, so endpoints added later are covered without
 * editing this file. Every call must be a 403 problem, audited as
 * authz.workspace_mismatch on A's workspace, and A's data must not change.
 */

type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type TOp = { method: string; template: string; op: TJson };

let A: TTestUser;
let B: TTestUser;
let wsA: TTestWorkspace;
let wsB: TTestWorkspace;
let doc: TJson;

beforeAll(async () => {
  await bootApp();
  A = await makeUser();
  B = await makeUser();
  wsA = await makeWorkspace(A.token, "A's workspace");
  wsB = await makeWorkspace(B.token, "B's workspace");
  // Give A's workspace some state worth protecting.
  const third = await makeUser();
  expect(
    (
      await api("PUT", `/v1/workspaces/${wsA.id}/members/${third.userId}`, {
        token: A.token,
        body: { role: "developer" },
      })
    ).status,
  ).toBe(200);
  expect(
    (await api("PUT", `/v1/workspaces/${wsA.id}/budgets/ai_tokens`, { token: A.token, body: { limit_units: 500 } }))
      .status,
  ).toBe(200);
  doc = buildOpenApiDocument(BASE_URL);
});

function wsOperations(): TOp[] {
  const ops: TOp[] = [];
  for (const [template, item] of Object.entries<TJson>(doc.paths ?? {})) {
    // The spec names the workspace parameter {workspace_id} on one path (capability-contract).
    if (!template.includes("{ws}") && !template.includes("{workspace_id}")) continue;
    for (const [method, op] of Object.entries<TJson>(item)) {
      if (!["get", "put", "post", "patch", "delete"].includes(method)) continue;
      ops.push({ method: method.toUpperCase(), template, op });
    }
  }
  return ops;
}

function onlyWs(o: TOp): boolean {
  return [...o.template.matchAll(/\{(\w+)\}/g)].length === 1;
}

function deref(schema: TJson | undefined): TJson | undefined {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) {
    const parts = String(s.$ref).replace(/^#\//, "").split("/");
    s = parts.reduce<TJson | undefined>((acc, p) => acc?.[p], doc);
  }
  return s;
}

/** An id for a pattern such as ^usr_[0-7]...$ (or a param named after a prefix). */
function idFor(hint: string): string | undefined {
  if (hint === "^[0-9a-f]{64}$" || hint === "sha256") return "0".repeat(64);
  const m = /\^?\(?([a-z]+)_/.exec(hint);
  const prefix = m?.[1] ?? hint;
  if (prefix === "usr") return B.userId;
  if (prefix === "ws") return wsB.id;
  return (ID_PREFIXES as readonly string[]).includes(prefix) ? newId(prefix as TIdPrefix) : undefined;
}

/** A minimal valid value for a JSON schema (enough for the endpoints' zod contracts). */
function sample(schema: TJson | undefined, name = ""): unknown {
  const s = deref(schema);
  if (!s) return {};
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const k of ["anyOf", "oneOf"]) {
    if (Array.isArray(s[k])) return sample(s[k].find((x: TJson) => deref(x)?.type !== "null") ?? s[k][0], name);
  }
  if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((x: TJson) => sample(x, name)));
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) out[key] = sample(s.properties?.[key], key);
      return out;
    }
    case "array":
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items, name));
    case "integer":
    case "number":
      return Math.max(1, s.minimum ?? 1);
    case "boolean":
      return false;
    case "string": {
      if (s.format === "email" || /email/.test(name)) return B.email;
      if (s.format === "date-time") return new Date().toISOString();
      if (typeof s.pattern === "string") {
        const id = idFor(s.pattern);
        if (id) return id;
      }
      const id = idFor(name);
      if (id && name.endsWith("_id")) return id;
      return "x".repeat(Math.max(1, s.minLength ?? 1));
    }
    default:
      return {};
  }
}

/** Hand-picked bodies for known endpoints: the most damaging valid request B could make. */
const OVERRIDES: Record<string, () => unknown> = {
  "PUT /v1/workspaces/{ws}/members/{usr}": () => ({ role: "owner" }),
  "POST /v1/workspaces/{ws}/members": () => ({ email: B.email, role: "owner" }),
  "PUT /v1/workspaces/{ws}/plan": () => ({ plan: "enterprise" }),
  "PUT /v1/workspaces/{ws}/budgets/{category}": () => ({ limit_units: 0 }),
};

function fillPath({ template, op }: TOp, ws: string): string {
  return template.replace(/\{(\w+)\}/g, (_all, name: string) => {
    if (name === "ws" || name === "workspace_id") return ws;
    const param = (op.parameters ?? []).find((p: TJson) => p.in === "path" && p.name === name);
    const schema = deref(param?.schema) ?? {};
    if (Array.isArray(schema.enum)) return encodeURIComponent(String(schema.enum[0]));
    if (name === "usr") return B.userId; // B targets themself: e.g. to join A's workspace as owner
    const id = (typeof schema.pattern === "string" && idFor(schema.pattern)) || idFor(name);
    return encodeURIComponent(id ?? "x");
  });
}

function bodyFor(o: TOp): unknown {
  if (!o.op.requestBody) return undefined;
  const override = OVERRIDES[`${o.method} ${o.template}`];
  if (override) return override();
  return sample(o.op.requestBody.content?.["application/json"]?.schema);
}

async function snapshotA() {
  const views: Record<string, unknown> = {};
  for (const path of ["", "/members", "/plan", "/budgets"]) {
    const r = await api("GET", `/v1/workspaces/${wsA.id}${path}`, { token: A.token });
    expect(r.status, r.text).toBe(200);
    views[path || "/"] = r.json;
  }
  const rows = {
    workspace: await db().workspace.findUnique({ where: { id: wsA.id } }),
    memberships: await db().membership.findMany({ where: { workspaceId: wsA.id }, orderBy: { id: "asc" } }),
    plan: await db().plan.findUnique({ where: { workspaceId: wsA.id } }),
    budgets: await db().budget.findMany({ where: { workspaceId: wsA.id }, orderBy: { id: "asc" } }),
    nonAuthzAudit: await db().auditRecord.count({
      where: { workspaceId: wsA.id, NOT: { action: { startsWith: "authz." } } },
    }),
  };
  return JSON.parse(JSON.stringify({ views, rows }));
}

describe("cross-tenant isolation (design: not a member of {ws} -> 403 + authz.workspace_mismatch)", () => {
  it("the OpenAPI document lists at least the known workspace-scoped endpoints", () => {
    const listed = wsOperations().map((o) => `${o.method} ${o.template}`);
    expect(listed).toEqual(
      expect.arrayContaining([
        "GET /v1/workspaces/{ws}",
        "GET /v1/workspaces/{ws}/members",
        "PUT /v1/workspaces/{ws}/members/{usr}",
        "POST /v1/workspaces/{ws}/members",
        "GET /v1/workspaces/{ws}/plan",
        "PUT /v1/workspaces/{ws}/plan",
        "GET /v1/workspaces/{ws}/budgets",
        "PUT /v1/workspaces/{ws}/budgets/{category}",
      ]),
    );
  });

  it("B's token gets 403 on every {ws} endpoint of A's workspace (valid bodies), audited, and A's data is unchanged", async () => {
    const before = await snapshotA();
    const failures: string[] = [];
    const ops = wsOperations();
    for (const o of ops) {
      const path = fillPath(o, wsA.id);
      const body = bodyFor(o);
      const correlationId = newId("evt");
      const r = await api(o.method, path, { token: B.token, body, headers: { "x-correlation-id": correlationId } });
      const label = `${o.method} ${path} ${body === undefined ? "" : JSON.stringify(body)}`;
      if (r.status !== 403) {
        failures.push(`${label} -> ${r.status} ${r.text}`);
        continue;
      }
      const p = expectShape(Problem, r.json);
      expect(p.code).toBe("forbidden");
      expect(p.correlation_id).toBe(correlationId);
      expect(r.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      // The problem must not leak A's data.
      expect(r.text).not.toContain(A.email);
      // A platform operation on A's workspace (/v1/platform/wallets/{ws}/...) is refused as a platform
      // operation: B is not a member of ws_platform, and that is where the refusal is audited.
      const auditWs = o.template.startsWith("/v1/platform/") ? "ws_platform" : wsA.id;
      const audit = await db().auditRecord.findMany({ where: { workspaceId: auditWs, correlationId } });
      if (audit.length !== 1 || audit[0]!.action !== "authz.workspace_mismatch" || audit[0]!.actorId !== B.userId) {
        failures.push(
          `${label}: expected one authz.workspace_mismatch audit by B, got ${JSON.stringify(audit.map((x) => [x.action, x.actorId]))}`,
        );
      }
    }
    console.info(
      `cross-tenant: checked ${ops.length} operations:\n  ${ops.map((o) => `${o.method} ${o.template}`).join("\n  ")}`,
    );
    expect(failures, failures.join("\n")).toEqual([]);
    expect(await snapshotA()).toEqual(before);
    // B is still not a member and does not see A's workspace.
    expect(
      await db().membership.findUnique({ where: { workspaceId_userId: { workspaceId: wsA.id, userId: B.userId } } }),
    ).toBeNull();
    const list = await api("GET", "/v1/workspaces?limit=200", { token: B.token });
    expect(list.json.items.map((w: { id: string }) => w.id)).toEqual([wsB.id]);
  });

  it("403 comes before body validation: invalid bodies to A's workspace are also 403, never 422", async () => {
    const before = await snapshotA();
    const failures: string[] = [];
    for (const o of wsOperations().filter((x) => x.op.requestBody)) {
      for (const body of [{}, { bogus: true }, { plan: "gold", role: "superuser", limit_units: "10" }]) {
        const r = await api(o.method, fillPath(o, wsA.id), { token: B.token, body });
        if (r.status !== 403)
          failures.push(`${o.method} ${o.template} ${JSON.stringify(body)} -> ${r.status} ${r.text}`);
      }
    }
    expect(failures, failures.join("\n")).toEqual([]);
    expect(await snapshotA()).toEqual(before);
  });

  it("a malformed path parameter after {ws} is also answered 403 for a non-member", async () => {
    const r = await api("PUT", `/v1/workspaces/${wsA.id}/members/usr_bad`, { token: B.token, body: { role: "owner" } });
    expect(r.status, r.text).toBe(403);
    const c = await api("PUT", `/v1/workspaces/${wsA.id}/budgets/bananas`, {
      token: B.token,
      body: { limit_units: 1 },
    });
    expect(c.status, c.text).toBe(403);
  });

  it("the same requests by A against A's workspace succeed (the 403s are about B, not the requests)", async () => {
    const failures: string[] = [];
    for (const o of wsOperations()) {
      if (o.method !== "GET") continue;
      const r = await api(o.method, fillPath(o, wsA.id).replace(B.userId, A.userId), { token: A.token });
      // Endpoints with a further path id get a made-up id: 404 is the right answer there.
      const ok = onlyWs(o) ? [200] : [200, 404];
      if (!ok.includes(r.status)) failures.push(`${o.method} ${o.template} -> ${r.status} ${r.text}`);
    }
    expect(failures, failures.join("\n")).toEqual([]);
    const plan = await api("PUT", `/v1/workspaces/${wsA.id}/plan`, { token: A.token, body: { plan: "free" } });
    expect(plan.status, plan.text).toBe(200);
  });

  it("B's own workspace is unaffected by A and B's endpoints work for B", async () => {
    for (const o of wsOperations()) {
      if (o.method !== "GET") continue;
      const r = await api("GET", fillPath(o, wsB.id), { token: B.token });
      expect(onlyWs(o) ? [200] : [200, 404], `${o.template}: ${r.text}`).toContain(r.status);
    }
    const r = await api("GET", `/v1/workspaces/${wsB.id}`, { token: A.token });
    expect(r.status).toBe(403);
  });
});
