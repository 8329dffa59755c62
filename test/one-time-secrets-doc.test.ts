import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/server/http/openapi";
import { markedOperations, unmarkedSecretFields } from "./support/one-time-secrets";

/**
 * Issue #33 item 1, the static half: in /v1/openapi.json every response field
 * named like a secret carries the one-time-secret mark (or is listed in
 * NOT_ONE_TIME with why), and the operations known to return one are marked.
 * test/one-time-secrets.int.test.ts calls each of them and searches a pg_dump.
 */
describe("one-time secrets in the API document", () => {
  const doc = buildOpenApiDocument("http://localhost:3000");

  it("no response field named like a secret goes unmarked", () => {
    expect(unmarkedSecretFields(doc)).toEqual([]);
  });

  it("the operations that show a secret once are marked", () => {
    expect(
      markedOperations(doc)
        .map((o) => `${o.key} ${o.paths.map((p) => p.join(".")).join(",")}`)
        .sort(),
    ).toEqual([
      "post /v1/platform/service-identities client_secret",
      "post /v1/platform/service-identities/{svc}:rotate-secret client_secret",
      "post /v1/workspaces/{ws}/event-subscriptions secret",
      "post /v1/workspaces/{ws}/event-subscriptions/{wb}:rotate-secret secret",
      "post /v1/workspaces/{ws}/managed-resources secret",
      "post /v1/workspaces/{ws}/managed-resources/{mres}/read-only-credential secret",
      "post /v1/workspaces/{ws}/managed-resources/{mres}:rotate-credentials secret",
      "post /v1/workspaces/{ws}/products/{prod}/push-hook secret",
      "post /v1/workspaces/{ws}/products/{prod}/push-hook:rotate-secret secret",
      "post /v1/workspaces/{ws}/service-identities client_secret",
      "post /v1/workspaces/{ws}/service-identities/{svc}:rotate-secret client_secret",
    ]);
  });

  it("a planted field named like a secret without the mark is found", () => {
    const planted = structuredClone(doc);
    planted.paths["/v1/planted"] = {
      post: {
        responses: {
          "201": {
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: {
                    id: { type: "string" },
                    nested: { type: "object", properties: { db_password: { type: "string" } } },
                  },
                },
              },
            },
          },
        },
      },
    };
    expect(unmarkedSecretFields(planted)).toEqual(["post /v1/planted nested.db_password"]);
  });
});
