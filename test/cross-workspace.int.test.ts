import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { returnLeases } from "@/server/domain/usage/leases.service";
import { buildOpenApiDocument } from "@/server/http/openapi";
import { db } from "@/server/platform/db/client";
import { ID_PREFIXES, newId, type TIdPrefix } from "@/server/platform/ids";
import { runner } from "@/server/runtime";
import { BASE_URL, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp, bridge, kvCapability, setupBridge } from "./support/bridge-fixtures";
import { route } from "./support/handlers";
import { expectShape, Problem } from "./support/spec-schemas";
import { seedTenant, type TTenantFixture } from "./support/tenant-fixtures";

/**
 * Issue #15 item 6: workspace A's owner against the REAL resources of
 * workspace B, on every operation of /v1/openapi.json.
 *
 * B (the victim, test/support/tenant-fixtures.ts) holds one real row of every
 * resource type a path names. For every operation, B's ids are put into the
 * path parameters and the request is sent with A's owner token:
 *   - {ws} = B: 403 `forbidden` (docs/decisions.md "Identity and tenancy": not a
 *     member of {ws}); a platform path: 403 (A is no platform admin);
 *   - {ws} = A (A's own workspace) with B's resource ids: 404 `not_found`, the
 *     same answer as for an id that does not exist (spec 4.1: a resource is
 *     addressed within its workspace, and its existence elsewhere is not told);
 *   - a path without {ws} naming B's resource (sessions, surfaces): 404.
 * Every answer is a problem document, and a digest of every row of B (every
 * table with a workspace_id, and the tables hanging off them) is the same
 * before and after; B's audit trail only gains the authz.* records of the
 * refusals. A positive control proves the ids are real: B's owner reads each
 * of them (200). Operations added to the document later are covered without
 * editing this file; one with a path parameter this file cannot fill fails.
 */
type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type TOp = { method: string; template: string; op: TJson };

/**
 * Path parameters that do not name a workspace's resource, each with why. The
 * tenancy question for them is asked through {ws} (covered by the 403 case).
 */
const GLOBAL_PARAMS: Record<string, string> = {
  usr: "users are platform-wide identities; adding any user to your OWN workspace is allowed",
  category: "a usage category (enum), the same in every workspace",
  provider: "a rate card's provider: platform catalogue",
  model: "a rate card's model: platform catalogue",
  tier: "a subscription tier: platform catalogue",
  capability: "Bridge capability name: the caller's token decides the workspace",
  action: "Bridge action name: the caller's token decides the workspace",
  type: "an event schema name: public documentation",
  gateway: "a payment gateway name: platform configuration",
  clk: "a billing test clock: platform-owned (CAPSTAN_TEST_CLOCKS), only under /v1/platform (A is no platform admin: 403)",
  host: "a runner host: platform infrastructure, only under /v1/platform (A is no platform admin: 403)",
  key: "an object key of a presigned URL: names nothing by itself (the signature over bucket and key decides)",
};
/**
 * Routes whose credential is a signature in the URL, not a bearer token: a
 * token (A's or B's) opens nothing there, and every request without a valid
 * signature is a 403 whatever the ids. Their cross-tenant cases (another
 * bucket, another key, tampered, expired) are in test/managed-bucket-objects.int.test.ts.
 */
const SIGNED_ROUTES = ["/v1/buckets/"];
const signed = (o: TOp) => SIGNED_ROUTES.some((p) => o.template.startsWith(p));
const WS_PARAMS = new Set(["ws", "workspace_id"]);
/**
 * Path parameters that filter rather than address one resource: the answer
 * for B's value must be exactly the answer for a value that never existed
 * (a correlation spans workspaces; each sees only its own events of it).
 */
const FILTER_PARAMS: Record<string, string> = {
  evt: 'a correlation id: an unknown correlation is an empty list (docs/decisions.md "Audit API")',
};

let A: TTestUser;
let wsA: string;
let aBridge: string;
let V: TTenantFixture;
let doc: TJson;
let digestSql = "";
let before = "";
let auditBefore = 0;

beforeAll(async () => {
  await bootBridgeApp();
  V = await seedTenant();
  A = await makeUser();
  wsA = (await makeWorkspace(A.token, "attacker")).id;
  aBridge = (await setupBridge({ owner: A, ws: wsA, capabilities: [kvCapability()] })).token;
  doc = buildOpenApiDocument(BASE_URL);
  digestSql = await buildDigestSql();
  // The victim's Bridge call drew from a budget lease: it goes back (its budget row and lease row change)
  // within LEASE_IDLE_MS; settle that before the snapshot, so only the sweeps below could change B.
  await returnLeases();
  before = await digest();
  auditBefore = await db().auditRecord.count({ where: { workspaceId: V.ws } });
}, 300_000);

afterAll(async () => {
  await runner().sweep(async () => new Set());
});

/** Every row of the victim: tables with workspace_id, plus the child tables that hang off them. */
async function buildDigestSql(): Promise<string> {
  const tables = await db().$queryRaw<{ table_name: string }[]>`
    SELECT table_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND column_name = 'workspace_id' ORDER BY table_name`;
  const row = (t: string, from: string) =>
    `SELECT '${t}' AS t, count(*)::int AS n, md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS h FROM ${from}`;
  const parts = tables
    .filter((t) => t.table_name !== "audit_records")
    .map((t) => row(t.table_name, `"${t.table_name}" x WHERE x.workspace_id = $1`));
  parts.push(
    row("workspaces", `workspaces x WHERE x.id = $1`),
    row(
      "webhook_attempts",
      `webhook_attempts x JOIN webhook_deliveries d ON d.id = x.delivery_id WHERE d.workspace_id = $1`,
    ),
    row("budget_reservations", `budget_reservations x JOIN budgets b ON b.id = x.budget_id WHERE b.workspace_id = $1`),
    row(
      "managed_resource_uses",
      `managed_resource_uses x JOIN deployments d ON d.id = x.deployment_id WHERE d.workspace_id = $1`,
    ),
  );
  return parts.join(" UNION ALL ");
}

async function digest(): Promise<string> {
  const rows = await db().$queryRawUnsafe<{ t: string; n: number; h: string }[]>(digestSql, V.ws);
  return rows
    .map((r) => `${r.t}:${r.n}:${r.h}`)
    .sort()
    .join("\n");
}

function operations(): TOp[] {
  const ops: TOp[] = [];
  for (const [template, item] of Object.entries<TJson>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<TJson>(item)) {
      if (["get", "put", "post", "patch", "delete"].includes(method))
        ops.push({ method: method.toUpperCase(), template, op });
    }
  }
  return ops;
}

const params = (o: TOp) => [...o.template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
const hasWs = (o: TOp) => params(o).some((p) => WS_PARAMS.has(p));
/** Operations naming at least one of a workspace's resources in the path (beyond {ws}). */
const resourceParams = (o: TOp) => params(o).filter((p) => !WS_PARAMS.has(p) && !(p in GLOBAL_PARAMS));

function deref(schema: TJson | undefined): TJson | undefined {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++)
    s = String(s.$ref)
      .replace(/^#\//, "")
      .split("/")
      .reduce<TJson | undefined>((acc, p) => acc?.[p], doc);
  return s;
}

/** The victim's id for a path parameter (the fix's own product and revision on the fix paths). */
function victimId(o: TOp, name: string): string {
  if (o.template.includes("/fixes") && (name === "prod" || name === "rev")) return V.fixPath[name];
  const id = V.ids[name];
  if (!id)
    throw new Error(
      `${o.method} ${o.template}: no victim resource for path parameter {${name}}; add one to test/support/tenant-fixtures.ts or to GLOBAL_PARAMS with a reason`,
    );
  return id;
}

function fill(o: TOp, ws: string, fresh = false): string {
  return o.template.replace(/\{(\w+)\}/g, (_all, name: string) => {
    if (WS_PARAMS.has(name)) return ws;
    if (name in GLOBAL_PARAMS) {
      const schema =
        deref((o.op.parameters ?? []).find((p: TJson) => p.in === "path" && p.name === name)?.schema) ?? {};
      if (Array.isArray(schema.enum)) return encodeURIComponent(String(schema.enum[0]));
      return name === "usr" ? V.owner.userId : "x";
    }
    const id = victimId(o, name);
    return encodeURIComponent(
      fresh && /^[a-z]+_/.test(id) ? newId(id.split("_")[0] as TIdPrefix) : fresh ? "f".repeat(id.length) : id,
    );
  });
}

/** An id of the victim for a body member (by its pattern's prefix), else a fresh id. */
function idForPattern(pattern: string): string | undefined {
  const prefix = /\^?\(?([a-z]+)_/.exec(pattern)?.[1];
  if (!prefix || !(ID_PREFIXES as readonly string[]).includes(prefix)) return undefined;
  const byPrefix = Object.values(V.ids).find((id) => id.startsWith(`${prefix}_`));
  return byPrefix ?? newId(prefix as TIdPrefix);
}

/** A minimal valid value for a JSON schema; ids are the victim's. */
function sample(schema: TJson | undefined, name = ""): unknown {
  const s = deref(schema);
  if (!s) return {};
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const k of ["anyOf", "oneOf"])
    if (Array.isArray(s[k])) return sample(s[k].find((x: TJson) => deref(x)?.type !== "null") ?? s[k][0], name);
  if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((x: TJson) => sample(x, name)));
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  switch (type) {
    case "object":
      return Object.fromEntries((s.required ?? []).map((key: string) => [key, sample(s.properties?.[key], key)]));
    case "array":
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items, name));
    case "integer":
    case "number":
      return Math.max(1, s.minimum ?? 1);
    case "boolean":
      return false;
    case "string":
      if (s.format === "email" || /email/.test(name)) return V.owner.email;
      if (s.format === "date-time") return new Date(Date.now() + 3_600_000).toISOString();
      if (s.format === "uri" || /url/.test(name)) return "https://example.com/x";
      return (typeof s.pattern === "string" && idForPattern(s.pattern)) || "x".repeat(Math.max(1, s.minLength ?? 1));
    default:
      return {};
  }
}

/** Hand-picked bodies where the minimal one would not pass validation (so the answer is about the id, not the body). */
const BODIES: Record<string, () => unknown> = {
  "POST /v1/workspaces/{ws}/pending-operations/{pend}:resolve": () => ({ decision: "approve" }),
  "POST /v1/workspaces/{ws}/products/{prod}/revisions/{rev}/fixes": () => ({ finding_code: "no_start_command" }),
  "POST /v1/sessions/{ses}/invocations": () => ({
    kind: "http_request",
    body_evidence: null,
    method: "GET",
    path: "/hello",
  }),
};

function bodyFor(o: TOp): unknown {
  if (!o.op.requestBody) return o.method === "GET" || o.method === "DELETE" ? undefined : {};
  const override = BODIES[`${o.method} ${o.template}`];
  if (override) return override();
  const content = o.op.requestBody.content ?? {};
  return content["application/json"] ? sample(content["application/json"].schema) : undefined;
}

async function send(method: string, path: string, token: string, body?: unknown) {
  const headers = new Headers({ authorization: `Bearer ${token}` });
  if (body !== undefined) headers.set("content-type", "application/json");
  const res = await route(
    new Request(BASE_URL + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
  const text = await res.text();
  let json: TJson | undefined;
  try {
    json = text ? (JSON.parse(text) as TJson) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Asserts a refusal: the status, a problem document with that status, and none of B's secrets or ids beyond the path. */
function refusal(
  failures: string[],
  label: string,
  r: Awaited<ReturnType<typeof send>>,
  status: 401 | 403 | 404,
): void {
  if (r.status !== status)
    return void failures.push(`${label} -> ${r.status} (expected ${status}) ${r.text.slice(0, 300)}`);
  if (!/^application\/problem\+json/.test(r.headers.get("content-type") ?? ""))
    return void failures.push(`${label}: not a problem document (${r.headers.get("content-type")})`);
  const p = expectShape(Problem, r.json);
  if (
    p.status !== status ||
    p.code !== (status === 403 ? "forbidden" : status === 401 ? "unauthenticated" : "not_found")
  )
    failures.push(`${label}: problem ${p.status} ${p.code}`);
  if (r.text.includes(V.kv.value) || r.text.includes(V.owner.email))
    failures.push(`${label}: the problem leaks the victim's data`);
}

describe("workspace A against the real resources of workspace B, on every operation of /v1/openapi.json", () => {
  it("knows how to fill every path parameter of the document (a new one fails here until it is given a victim resource or a reason)", () => {
    const unknown: string[] = [];
    for (const o of operations()) {
      for (const p of params(o))
        if (!WS_PARAMS.has(p) && !(p in GLOBAL_PARAMS) && !V.ids[p]) unknown.push(`${o.method} ${o.template}: {${p}}`);
    }
    expect(unknown).toEqual([]);
    expect(operations().filter((o) => resourceParams(o).length).length).toBeGreaterThan(50);
  });

  it("positive control: B's owner reads every one of these resources (the ids are real)", async () => {
    const failures: string[] = [];
    for (const o of operations().filter(
      (x) => x.method === "GET" && resourceParams(x).length && !x.template.startsWith("/v1/platform/") && !signed(x),
    )) {
      const path = fill(o, V.ws);
      const r = await send("GET", path, V.owner.token);
      if (r.status !== 200) failures.push(`GET ${path} -> ${r.status} ${r.text.slice(0, 200)}`);
    }
    expect(failures, failures.join("\n")).toEqual([]);
  });

  it("{ws} = B: every operation answers A 403 forbidden, whatever the ids", async () => {
    const failures: string[] = [];
    const ops = operations().filter(hasWs);
    for (const o of ops) {
      const path = fill(o, V.ws);
      refusal(failures, `${o.method} ${path}`, await send(o.method, path, A.token, bodyFor(o)), 403);
    }
    expect(failures, failures.join("\n")).toEqual([]);
    expect(ops.length).toBeGreaterThan(90);
  });

  it("{ws} = A with B's resource ids: every operation answers 404 not_found, exactly as for ids that never existed", async () => {
    const failures: string[] = [];
    const ops = operations().filter((o) => hasWs(o) && resourceParams(o).length);
    for (const o of ops) {
      const platform = o.template.startsWith("/v1/platform/");
      const path = fill(o, platform ? V.ws : wsA);
      const body = bodyFor(o);
      const r = await send(o.method, path, A.token, body);
      const fresh = await send(o.method, fill(o, platform ? V.ws : wsA, true), A.token, body);
      const label = `${o.method} ${path}`;
      if (resourceParams(o).every((p) => p in FILTER_PARAMS)) {
        if (
          r.status !== 200 ||
          fresh.status !== 200 ||
          JSON.stringify({ ...r.json, correlation_id: 0 }) !== JSON.stringify({ ...fresh.json, correlation_id: 0 })
        ) {
          failures.push(
            `${label} -> ${r.status} ${r.text.slice(0, 200)}; for an unknown value ${fresh.status} ${fresh.text.slice(0, 200)}`,
          );
        }
        continue;
      }
      refusal(failures, label, r, platform ? 403 : 404);
      if (fresh.status !== r.status || fresh.json?.code !== r.json?.code)
        failures.push(
          `${label} -> ${r.status} ${r.json?.code}, but ${fresh.status} ${fresh.json?.code} for ids that never existed`,
        );
    }
    expect(failures, failures.join("\n")).toEqual([]);
    expect(ops.length).toBeGreaterThan(50);
  });

  it("paths without {ws} naming B's resources (sessions, surfaces, platform identities) are refused", async () => {
    const failures: string[] = [];
    const ops = operations().filter((o) => !hasWs(o) && resourceParams(o).length);
    for (const o of ops) {
      const path = fill(o, wsA);
      if (signed(o)) {
        // No signature: refused before anything is looked up (the same 403 for B's bucket and one that never existed).
        const r = await send(o.method, path, A.token, o.method === "PUT" ? "x" : undefined);
        if (r.status !== 403 || r.json?.code !== "forbidden")
          failures.push(`${o.method} ${path} -> ${r.status} (expected 403)`);
        continue;
      }
      // The platform's operations are for ws_platform admins (403); a resource of another workspace does not exist for A (404);
      // a push hook is authenticated by its signature, never a bearer: A's token is no credential there (401, as for anyone).
      const expected = o.template.startsWith("/v1/platform/") ? 403 : o.template.startsWith("/v1/hooks/") ? 401 : 404;
      refusal(failures, `${o.method} ${path}`, await send(o.method, path, A.token, bodyFor(o)), expected);
    }
    expect(failures, failures.join("\n")).toEqual([]);
    expect(ops.map((o) => `${o.method} ${o.template}`)).toEqual(
      expect.arrayContaining(["POST /v1/surfaces/{srf}/access", "GET /v1/sessions/{ses}/invocations/{inv}"]),
    );
  });

  it("A's service identity reaches only A's data through the Bridge (same key, B's value never shows)", async () => {
    const get = await bridge(aBridge, "data.kv", "get", { key: V.kv.key });
    expect(get.status, get.text).toBeLessThan(500);
    expect(get.text).not.toContain(V.kv.value);
    const list = await bridge(aBridge, "data.kv", "list", { prefix: "/app" });
    expect(list.status, list.text).toBe(200);
    expect(list.text).not.toContain(V.kv.key);
    // The key is there, in B.
    expect(await db().kvEntry.count({ where: { workspaceId: V.ws } })).toBe(1);
  });

  it("nothing of B changed; B's audit trail gained only the authz.* records of the refusals", async () => {
    expect(await digest()).toBe(before);
    const added = await db().auditRecord.findMany({
      where: { workspaceId: V.ws },
      orderBy: { seq: "asc" },
      skip: auditBefore,
    });
    expect(
      added.filter((a) => !a.action.startsWith("authz.") && a.action !== "access.denied").map((a) => a.action),
    ).toEqual([]);
    expect(added.every((a) => a.actorId === A.userId || a.actorId === null)).toBe(true);
  });
});
