import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/server/http/openapi";
import { breakingChanges, versionVerdict } from "../scripts/openapi-breaking";

/** The breaking-change guard's rules (docs/decisions.md), each one a change it must and must not flag. */
type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const base = (): TJson => ({
  openapi: "3.1.0",
  info: { title: "t", version: "1.0.0" },
  paths: {
    "/v1/things/{id}": {
      get: {
        security: [],
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string" } },
          { name: "limit", in: "query", required: false, schema: { type: "integer" } },
        ],
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
          },
          "404": { description: "nf", content: { "application/problem+json": { schema: { type: "object" } } } },
        },
      },
      post: {
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                additionalProperties: false,
                required: ["name"],
                properties: {
                  name: { type: "string" },
                  kind: { type: "string", enum: ["a", "b"] },
                  note: { type: "string" },
                },
              },
            },
          },
        },
        responses: {
          "201": {
            description: "created",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: "object",
        required: ["id", "state"],
        properties: {
          id: { type: "string" },
          state: { type: "string", enum: ["on", "off"] },
          size: { type: "integer" },
        },
      },
    },
  },
});

const changed = (edit: (d: TJson) => void): string[] => {
  const d = base();
  edit(d);
  return breakingChanges(base(), d);
};

describe("breakingChanges", () => {
  it("finds nothing between a document and itself, nor in the project's own document", () => {
    expect(breakingChanges(base(), base())).toEqual([]);
    const doc = buildOpenApiDocument("http://localhost:3000");
    expect(breakingChanges(doc, structuredClone(doc))).toEqual([]);
  });

  it("allows additions: operations, optional request fields, response fields, statuses, enum values; and path parameter renames", () => {
    expect(
      changed((d) => {
        d.paths["/v1/other"] = { get: { responses: { "200": { description: "ok" } } } };
        d.paths["/v1/things/{id}"].post.requestBody.content["application/json"].schema.properties.extra = {
          type: "string",
        };
        d.components.schemas.Thing.properties.color = { type: "string" };
        d.components.schemas.Thing.properties.state.enum.push("broken");
        d.paths["/v1/things/{id}"].get.responses["429"] = { description: "slow down" };
        d.paths["/v1/things/{id}"].post.requestBody.content["application/json"].schema.properties.kind.enum.push("c");
        d.paths["/v1/things/{thing}"] = d.paths["/v1/things/{id}"];
        delete d.paths["/v1/things/{id}"];
      }),
    ).toEqual([]);
  });

  it("flags a removed operation, response status and media type", () => {
    expect(changed((d) => delete d.paths["/v1/things/{id}"].post)).toEqual(["POST /v1/things/{id}: operation removed"]);
    expect(changed((d) => delete d.paths["/v1/things/{id}"].get.responses["404"])).toEqual([
      "GET /v1/things/{id}: response 404 removed",
    ]);
    expect(changed((d) => (d.paths["/v1/things/{id}"].get.responses["200"].content = { "text/plain": {} }))).toEqual([
      "GET /v1/things/{id} 200: response media type application/json removed",
    ]);
  });

  it("flags a removed or no longer required response property, through $ref", () => {
    const removed = changed((d) => delete d.components.schemas.Thing.properties.size);
    expect(removed).toContain("GET /v1/things/{id} 200 application/json/size: response property removed");
    expect(removed).toContain("POST /v1/things/{id} 201 application/json/size: response property removed");
    expect(changed((d) => (d.components.schemas.Thing.required = ["id"]))).toContain(
      "GET /v1/things/{id} 200 application/json/state: response property no longer required",
    );
  });

  it("flags a newly required request field, parameter or body", () => {
    expect(
      changed((d) =>
        d.paths["/v1/things/{id}"].post.requestBody.content["application/json"].schema.required.push("note"),
      ),
    ).toEqual(["POST /v1/things/{id} request application/json/note: request property became required"]);
    expect(changed((d) => (d.paths["/v1/things/{id}"].get.parameters[1].required = true))).toEqual([
      "GET /v1/things/{id}: parameter became required query limit",
    ]);
    expect(
      changed((d) =>
        d.paths["/v1/things/{id}"].get.parameters.push({
          name: "X-Tenant",
          in: "header",
          required: true,
          schema: { type: "string" },
        }),
      ),
    ).toEqual(["GET /v1/things/{id}: new required parameter header x-tenant"]);
  });

  it("flags a narrowed request enum, a changed const and changed types", () => {
    expect(
      changed(
        (d) =>
          (d.paths["/v1/things/{id}"].post.requestBody.content["application/json"].schema.properties.kind.enum = ["a"]),
      ),
    ).toEqual(['POST /v1/things/{id} request application/json/kind: enum lost "b"']);
    expect(changed((d) => (d.paths["/v1/things/{id}"].get.parameters[1].schema.type = "boolean"))).toEqual([
      "GET /v1/things/{id} parameter query limit: type integer became boolean (a request accepts less)",
    ]);
    expect(changed((d) => (d.components.schemas.Thing.properties.size.type = ["integer", "null"]))).toContain(
      "GET /v1/things/{id} 200 application/json/size: type integer became integer|null (a response may answer more)",
    );
    expect(
      changed(
        (d) =>
          (d.paths["/v1/things/{id}"].post.requestBody.content["application/json"].schema.properties.note = {
            type: "string",
            const: "x",
          }),
      ),
    ).toEqual(['POST /v1/things/{id} request application/json/note: became const "x"']);
  });

  it("flags a public operation that starts requiring credentials", () => {
    expect(changed((d) => (d.paths["/v1/things/{id}"].get.security = [{ bearerAuth: [] }]))).toEqual([
      "GET /v1/things/{id}: a public operation now requires credentials",
    ]);
  });
});

describe("versionVerdict (spec 9: a breaking change is a new major version)", () => {
  it("passes without breaking changes, whatever the minor version", () => {
    expect(versionVerdict("1.0.0", "1.0.0", []).ok).toBe(true);
    expect(versionVerdict("1.0.0", "1.3.0", []).ok).toBe(true);
  });

  it("fails a breaking change under the same major version, passes it under a new one", () => {
    expect(versionVerdict("1.0.0", "1.1.0", ["x"])).toMatchObject({ ok: false });
    expect(versionVerdict("1.0.0", "1.1.0", ["x"]).message).toMatch(/publish a new major version/);
    expect(versionVerdict("1.4.0", "2.0.0", ["x"]).ok).toBe(true);
  });

  it("fails a version that goes down or is not semver", () => {
    expect(versionVerdict("2.0.0", "1.9.0", []).ok).toBe(false);
    expect(versionVerdict("1.0.0", "latest", []).ok).toBe(false);
  });
});
