import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/server/http/openapi";

type TOp = {
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
  security?: unknown[];
};

describe("OpenAPI document", () => {
  const doc = buildOpenApiDocument("http://localhost:3000");

  it("validates as OpenAPI 3.1", async () => {
    const res = await new Validator().validate(structuredClone(doc));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("documents every /v1 path with /v1 and the health paths without it", () => {
    const paths = Object.keys(doc.paths);
    expect(paths).toContain("/healthz");
    expect(paths).toContain("/readyz");
    for (const p of paths.filter((p) => !["/healthz", "/readyz"].includes(p) && !p.startsWith("/.well-known/")))
      expect(p.startsWith("/v1/")).toBe(true);
  });

  it("uses real success statuses and problem+json errors", () => {
    const create = doc.paths["/v1/workspaces"].post as TOp;
    expect(Object.keys(create.responses)).toContain("201");
    expect(Object.keys(create.responses)).not.toContain("200");
    const list = doc.paths["/v1/workspaces"].get as TOp;
    for (const status of ["400", "401", "403", "404", "409", "422", "500", "503"]) {
      expect(list.responses[status]?.content).toHaveProperty(["application/problem+json"]);
    }
    expect(list.responses["401"]?.headers).toHaveProperty("WWW-Authenticate");
  });

  it("declares the bearer scheme", () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    const list = doc.paths["/v1/workspaces"].get as TOp;
    expect(list.security).toEqual([{ bearerAuth: [] }]);
  });
});
