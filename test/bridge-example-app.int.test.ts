import { beforeAll, describe, expect, it } from "vitest";
import { CapstanError } from "@capstan/client";
import { visit, type TBridgeAppConfig } from "../examples/bridge-app/app";
import { api, BASE_URL } from "./support/api";
import { bootBridgeApp, kvCapability, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";
import { inProcessFetch } from "./support/handlers";

/**
 * examples/bridge-app on every run: its service identity gets a Bridge token
 * and calls data.kv through the generated client, in-process through the
 * real handlers, every response checked against /v1/openapi.json.
 */
let s: TBridgeSetup;
let config: TBridgeAppConfig;

beforeAll(async () => {
  await bootBridgeApp();
  s = await setupBridge({ capabilities: [kvCapability({ actions: ["get", "set", "increment"] })] });
  config = { baseUrl: BASE_URL, clientId: s.svc.id, clientSecret: s.svc.secret, fetch: inProcessFetch };
});

describe("examples/bridge-app", () => {
  it("counts visits and greets the last visitor through the Bridge", async () => {
    const first = await visit(config, "Ada");
    expect(first).toMatchObject({ visits: 1, greeting: "Hello Ada, visit number 1" });
    const second = await visit(config, "Grace");
    expect(second).toMatchObject({ visits: 2, greeting: "Hello Grace, visit number 2" });

    // Each call is a recorded capability invocation of the product.
    const listed = await api<{ items: Array<{ id: string; outcome: string }> }>(
      "GET",
      `/v1/workspaces/${s.ws}/capability-invocations?product_id=${s.productId}&limit=200`,
      { token: s.owner.token },
    );
    expect(listed.status).toBe(200);
    const ids = new Set(listed.json.items.map((i) => i.id));
    for (const id of [...first.invocationIds, ...second.invocationIds]) expect(ids.has(id), id).toBe(true);
  });

  it("a wrong client secret is a CapstanError with the OAuth error", async () => {
    const err = await visit({ ...config, clientSecret: "wrong" }, "Eve").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CapstanError);
    expect(err).toMatchObject({ status: 401, body: { error: "invalid_client" } });
  });
});
