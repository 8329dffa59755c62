import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/platform/db/client";
import {
  api,
  bootApp,
  makeUser,
  makeWorkspace,
  type TApiResult,
  type TTestUser,
  type TTestWorkspace,
} from "./support/api";
import { expectShape, Problem } from "./support/spec-schemas";

/**
 * Names of products, service identities, webhooks and provider bindings
 * (#21): unique per workspace ignoring case, a 409 name_taken problem on
 * create and rename that names the holder, defaults derived from the
 * resource, revoked identities and bindings free their name, and another
 * workspace may use the same name. Through the real /v1 REST boundary.
 */
process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "1";

type TJson = Record<string, unknown>;
let owner: TTestUser;
let ws: TTestWorkspace;
let other: TTestWorkspace;

const future = () => new Date(Date.now() + 30 * 86_400_000).toISOString();

function expectNameTaken(r: TApiResult, holderId: string) {
  expect(r.status, r.text).toBe(409);
  expect(r.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const p = expectShape(Problem, r.json);
  expect(p.code).toBe("conflict");
  expect(p.reason).toBe("name_taken");
  expect(p.errors?.map((e) => e.path)).toEqual(["/name"]);
  expect((r.json as TJson).conflicting_id).toBe(holderId);
  expect(p.detail).toContain(holderId);
}

async function product(wsId: string, body: TJson = {}) {
  return api<TJson>("POST", `/v1/workspaces/${wsId}/products`, {
    token: owner.token,
    body: { repo_url: "https://git.example.com/acme/shop.git", ref: "main", auth: { kind: "none" }, ...body },
  });
}
const productName = async (id: string) => (await db().product.findUniqueOrThrow({ where: { id } })).name;

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
  [ws, other] = await Promise.all([makeWorkspace(owner.token), makeWorkspace(owner.token)]);
});

describe("products", () => {
  it("default to the repository's name, then -2, -3 for the same repository", async () => {
    const [a, b] = [await product(ws.id), await product(ws.id)];
    expect(a.status, a.text).toBe(202);
    expect(b.status, b.text).toBe(202);
    expect(await productName(a.json.product_id as string)).toBe("shop");
    expect(await productName(b.json.product_id as string)).toBe("shop-2");
    const got = await api<TJson>("GET", `/v1/workspaces/${ws.id}/products/${b.json.product_id as string}`, {
      token: owner.token,
    });
    expect(got.json).toMatchObject({ name: "shop-2", status: expect.stringMatching(/^(building|ready|failed)$/) });
    expect(Date.parse(got.json.last_activity_at as string)).toBeGreaterThanOrEqual(
      Date.parse(got.json.created_at as string),
    );
  });

  it("refuse a taken name in another case with 409 name_taken, writing nothing", async () => {
    const first = await product(ws.id, { name: "Storefront" });
    expect(first.status, first.text).toBe(202);
    const before = await db().product.count({ where: { workspaceId: ws.id } });
    const dup = await product(ws.id, { name: "  storefront " });
    expectNameTaken(dup, first.json.product_id as string);
    expect(await db().product.count({ where: { workspaceId: ws.id } })).toBe(before);
    // Another workspace of the same owner may use it.
    expect((await product(other.id, { name: "storefront" })).status).toBe(202);
  });

  it("rename: 200 with the new name and an audit record; 409 on a taken name; 404 across workspaces; 422 on a blank name", async () => {
    const a = (await product(ws.id, { name: "alpha" })).json.product_id as string;
    const b = (await product(ws.id, { name: "beta" })).json.product_id as string;
    const path = (id: string, w = ws.id) => `/v1/workspaces/${w}/products/${id}`;
    const ok = await api<TJson>("PATCH", path(a), { token: owner.token, body: { name: "Alpha One" } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.name).toBe("Alpha One");
    const audit = await db().auditRecord.findMany({
      where: { workspaceId: ws.id, action: "product.renamed", targetId: a },
    });
    expect(audit.map((x) => x.details)).toEqual([{ from: "alpha", to: "Alpha One" }]);
    expectNameTaken(await api("PATCH", path(b), { token: owner.token, body: { name: "ALPHA ONE" } }), a);
    expect(await productName(b)).toBe("beta");
    expect((await api("PATCH", path(a, other.id), { token: owner.token, body: { name: "x" } })).status).toBe(404);
    const blank = await api("PATCH", path(a), { token: owner.token, body: { name: "   " } });
    expect(blank.status, blank.text).toBe(422);
    const stray = await api("PATCH", path(a), { token: owner.token, body: { name: "ok", repo_url: "https://x" } });
    expect(stray.status, stray.text).toBe(422);
  });

  it("two concurrent creates of one name: one 202, one 409 name_taken", async () => {
    const results = await Promise.all([product(ws.id, { name: "racer" }), product(ws.id, { name: "RACER" })]);
    expect(results.map((r) => r.status).sort()).toEqual([202, 409]);
    const lost = results.find((r) => r.status === 409)!;
    expect(lost.json).toMatchObject({ reason: "name_taken" });
    expect(await db().product.count({ where: { workspaceId: ws.id, name: { in: ["racer", "RACER"] } } })).toBe(1);
  });

  it("a viewer may not rename (403)", async () => {
    const viewer = await makeUser();
    expect(
      (
        await api("PUT", `/v1/workspaces/${ws.id}/members/${viewer.userId}`, {
          token: owner.token,
          body: { role: "viewer" },
        })
      ).status,
    ).toBe(200);
    const id = (await product(ws.id)).json.product_id as string;
    expect(
      (await api("PATCH", `/v1/workspaces/${ws.id}/products/${id}`, { token: viewer.token, body: { name: "mine" } }))
        .status,
    ).toBe(403);
  });
});

describe("service identities", () => {
  let prod: string;
  beforeAll(async () => {
    prod = (await product(ws.id)).json.product_id as string;
  });
  const create = (name: string, wsId = ws.id, p = prod) =>
    api<TJson>("POST", `/v1/workspaces/${wsId}/service-identities`, {
      token: owner.token,
      body: { name, product_id: p },
    });

  it("refuse a live duplicate ignoring case; revoking frees the name; rename checks it too", async () => {
    const a = await create("ci-deployer");
    expect(a.status, a.text).toBe(201);
    expectNameTaken(await create("CI-Deployer"), a.json.id as string);
    const b = await create("nightly");
    expectNameTaken(
      await api("PATCH", `/v1/workspaces/${ws.id}/service-identities/${b.json.id as string}`, {
        token: owner.token,
        body: { name: "ci-deployer" },
      }),
      a.json.id as string,
    );
    expect(
      (await api("DELETE", `/v1/workspaces/${ws.id}/service-identities/${a.json.id as string}`, { token: owner.token }))
        .status,
    ).toBe(200);
    const again = await create("ci-deployer");
    expect(again.status, again.text).toBe(201);
    const renamed = await api<TJson>("PATCH", `/v1/workspaces/${ws.id}/service-identities/${b.json.id as string}`, {
      token: owner.token,
      body: { name: "Nightly job" },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json.name).toBe("Nightly job");
    const audit = await db().auditRecord.findMany({
      where: { workspaceId: ws.id, action: "service_identity.renamed", targetId: b.json.id as string },
    });
    expect(audit).toHaveLength(1);
  });

  it("another workspace may use the name; its identity is a 404 here", async () => {
    const otherProd = (await product(other.id)).json.product_id as string;
    const there = await create("ci-deployer", other.id, otherProd);
    expect(there.status, there.text).toBe(201);
    const r = await api("PATCH", `/v1/workspaces/${ws.id}/service-identities/${there.json.id as string}`, {
      token: owner.token,
      body: { name: "stolen" },
    });
    expect(r.status).toBe(404);
  });
});

describe("webhooks", () => {
  const create = (body: TJson) =>
    api<TJson>("POST", `/v1/workspaces/${ws.id}/event-subscriptions`, {
      token: owner.token,
      body: { url: "http://127.0.0.1:9/hook", event_types: ["*"], ...body },
    });

  it("default to the description, else the host; refuse a duplicate; rename", async () => {
    const byHost = await create({});
    expect(byHost.status, byHost.text).toBe(201);
    expect(byHost.json.name).toBe("127.0.0.1");
    expect(byHost.json.last_activity_at).toBeNull();
    expect((await create({})).json.name).toBe("127.0.0.1-2");
    expect((await create({ description: "Orders feed" })).json.name).toBe("Orders feed");
    const named = await create({ name: "Billing sink" });
    expectNameTaken(await create({ name: "billing SINK" }), named.json.id as string);
    const r = await api<TJson>("PATCH", `/v1/workspaces/${ws.id}/event-subscriptions/${named.json.id as string}`, {
      token: owner.token,
      body: { name: "orders feed" },
    });
    expect(r.status).toBe(409);
    const ok = await api<TJson>("PATCH", `/v1/workspaces/${ws.id}/event-subscriptions/${named.json.id as string}`, {
      token: owner.token,
      body: { name: "Billing" },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.name).toBe("Billing");
  });
});

describe("provider bindings", () => {
  let cred: string;
  beforeAll(async () => {
    const r = await api<TJson>("POST", `/v1/workspaces/${ws.id}/credentials`, {
      token: owner.token,
      body: {
        secret: `sk-test-${randomBytes(12).toString("hex")}`,
        provider: "openai",
        capability: "ai.generate",
        actions: ["generate"],
        scope: ["models/*"],
        expires_at: future(),
      },
    });
    expect(r.status, r.text).toBe(201);
    cred = r.json.id as string;
  });
  const create = (body: TJson = {}) =>
    api<TJson>("POST", `/v1/workspaces/${ws.id}/provider-bindings`, {
      token: owner.token,
      body: {
        credential_id: cred,
        capability: "ai.generate",
        actions: ["generate"],
        scope: ["models/gpt-4o-mini"],
        budget: { units: 1000, unit: "tokens" },
        capability_scope: {
          id: "ai.generate",
          scope: { models: ["text"], max_tokens_per_call: 100 },
          provider_models: { text: "gpt-4o-mini" },
        },
        ...body,
      },
    });

  it("default to provider and capability; refuse a live duplicate; revoking frees it; the list shows names", async () => {
    const a = await create();
    expect(a.status, a.text).toBe(201);
    expect(a.json.name).toBe("openai ai.generate");
    expect((await create()).json.name).toBe("openai ai.generate-2");
    const prod = await create({ name: "Production AI" });
    expectNameTaken(await create({ name: "production ai" }), prod.json.id as string);
    expect(
      (
        await api("DELETE", `/v1/workspaces/${ws.id}/provider-bindings/${prod.json.id as string}`, {
          token: owner.token,
        })
      ).status,
    ).toBe(204);
    expect((await create({ name: "production ai" })).status).toBe(201);
    const renamed = await api<TJson>("PATCH", `/v1/workspaces/${ws.id}/provider-bindings/${a.json.id as string}`, {
      token: owner.token,
      body: { name: "Default AI" },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const list = await api<{ items: TJson[] }>("GET", `/v1/workspaces/${ws.id}/provider-bindings?limit=200`, {
      token: owner.token,
    });
    expect(list.json.items.map((b) => b.name).sort()).toEqual(
      ["Default AI", "Production AI", "openai ai.generate-2", "production ai"].sort(),
    );
  });
});
