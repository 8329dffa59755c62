import { describe, expect, it } from "vitest";
import { STATUS_TITLES } from "@/server/platform/errors";
import { createResponseValidator, PROBLEM_TITLES, problemMismatch } from "./support/openapi-validator";

/** The response validator the integration and e2e suites use: each kind of mismatch is caught and named. */
const doc = {
  openapi: "3.1.0",
  info: { title: "t", version: "1.0.0" },
  paths: {
    "/v1/things/{id}": {
      get: {
        responses: {
          "200": {
            description: "ok",
            headers: { "X-Req": { required: true, schema: { type: "string", pattern: "^r_" } } },
            content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
          },
          "404": {
            description: "nf",
            content: { "application/problem+json": { schema: { type: "object", required: ["status"] } } },
          },
        },
      },
    },
    "/v1/things/{id}:stop": { post: { responses: { "204": { description: "stopped" } } } },
    "/v1/blobs/{sha}": {
      get: { responses: { "200": { description: "bytes", content: { "*/*": { schema: { type: "string" } } } } } },
    },
  },
  components: {
    schemas: {
      Thing: { type: "object", required: ["id"], properties: { id: { type: "string", format: "date-time" } } },
    },
  },
};

const v = createResponseValidator(doc);
const res = (over: {
  method?: string;
  path?: string;
  status?: number;
  headers?: Record<string, string>;
  text?: string;
}) => ({
  method: over.method ?? "GET",
  path: over.path ?? "/v1/things/a?x=1",
  status: over.status ?? 200,
  headers: new Headers(over.headers ?? { "content-type": "application/json", "x-req": "r_1" }),
  text: over.text ?? JSON.stringify({ id: "2026-11-25T00:00:00Z" }),
});

describe("createResponseValidator", () => {
  it("accepts a response the document describes", () => {
    expect(v.mismatch(res({}))).toBeNull();
    expect(
      v.mismatch(res({ method: "POST", path: "/v1/things/a:stop", status: 204, headers: {}, text: "" })),
    ).toBeNull();
    expect(
      v.mismatch(res({ path: "/v1/blobs/abc", headers: { "content-type": "text/plain" }, text: "raw" })),
    ).toBeNull();
    // Raw bytes that happen to be JSON are still raw bytes under */*.
    expect(
      v.mismatch(res({ path: "/v1/blobs/abc", headers: { "content-type": "application/json" }, text: '{"a":1}' })),
    ).toBeNull();
  });

  it("names the operation, the status and the first schema error of a body that does not match", () => {
    expect(v.mismatch(res({ text: JSON.stringify({ id: "yesterday" }) }))).toBe(
      'GET /v1/things/{id} 200: body does not match the document at /id: must match format "date-time" {"format":"date-time"}',
    );
    expect(v.mismatch(res({ text: "{}" }))).toMatch(
      /^GET \/v1\/things\/\{id\} 200: body does not match the document at \/: must have required property 'id'/,
    );
  });

  it("rejects an unlisted status, an unlisted media type, a non-JSON body and an unknown operation", () => {
    expect(v.mismatch(res({ status: 500 }))).toBe("GET /v1/things/{id}: status 500 is not listed (listed: 200, 404)");
    expect(v.mismatch(res({ headers: { "content-type": "text/html", "x-req": "r_1" } }))).toMatch(
      /media type text\/html is not listed/,
    );
    expect(v.mismatch(res({ text: "not json" }))).toMatch(/the body is not JSON/);
    expect(v.mismatch(res({ method: "DELETE", status: 200 }))).toMatch(/^DELETE \/v1\/things\/a: no such operation/);
    expect(
      v.mismatch(
        res({
          method: "POST",
          path: "/v1/things/a:stop",
          status: 204,
          headers: { "content-type": "application/json" },
          text: "{}",
        }),
      ),
    ).toMatch(/a body .* where the document declares none/);
  });

  it("checks declared headers: required ones present, sent ones matching their schema", () => {
    expect(v.mismatch(res({ headers: { "content-type": "application/json" } }))).toBe(
      "GET /v1/things/{id} 200: required header X-Req is missing",
    );
    expect(v.mismatch(res({ headers: { "content-type": "application/json", "x-req": "nope" } }))).toMatch(
      /header X-Req does not match the document/,
    );
  });

  it("lets an unknown route answer only a 404 or 405 problem", () => {
    const problem = { "content-type": "application/problem+json" };
    const nf = JSON.stringify({ status: 404, title: "Not found" });
    expect(v.mismatch(res({ path: "/v1/nothing", status: 404, headers: problem, text: nf }))).toBeNull();
    expect(
      v.mismatch(
        res({
          path: "/v1/nothing",
          status: 405,
          headers: problem,
          text: JSON.stringify({ status: 405, title: "Method not allowed" }),
        }),
      ),
    ).toBeNull();
    expect(
      v.mismatch(
        res({ path: "/v1/nothing", status: 200, headers: problem, text: JSON.stringify({ status: 200, title: "OK" }) }),
      ),
    ).toMatch(/no problem title is defined for status 200/);
  });

  it("refuses a problem document whose status or title disagrees with the response", () => {
    const problem = { "content-type": "application/problem+json; charset=utf-8" };
    // The bug this guards: a stopped surface answered 410 with a body saying 400 "Bad request".
    expect(
      v.mismatch(res({ status: 404, headers: problem, text: JSON.stringify({ status: 400, title: "Bad request" }) })),
    ).toBe("GET /v1/things/a 404: the problem document says status 400 but the response is 404");
    expect(
      v.mismatch(res({ status: 404, headers: problem, text: JSON.stringify({ status: 404, title: "Bad request" }) })),
    ).toBe('GET /v1/things/a 404: the problem title "Bad request" does not match status 404 ("Not found")');
    expect(v.mismatch(res({ status: 404, headers: problem, text: JSON.stringify({ title: "Not found" }) }))).toMatch(
      /says status undefined/,
    );
    expect(v.mismatch(res({ status: 404, headers: problem, text: "[]" }))).toMatch(/not an object/);
    expect(v.mismatch(res({ status: 404, headers: problem, text: "<html>" }))).toMatch(/not JSON/);
    // Outside the document too (a surface's own refusal).
    expect(
      problemMismatch({
        method: "GET",
        path: "/s/srf_x/",
        status: 410,
        headers: new Headers(problem),
        text: JSON.stringify({ status: 410, title: "Gone" }),
      }),
    ).toBeNull();
    expect(
      problemMismatch({
        method: "GET",
        path: "/s/srf_x/",
        status: 410,
        headers: new Headers(problem),
        text: JSON.stringify({ status: 400, title: "Bad request" }),
      }),
    ).toMatch(/says status 400/);
    // Any other media type is not a problem document.
    expect(
      problemMismatch({
        method: "GET",
        path: "/s/srf_x/",
        status: 410,
        headers: new Headers({ "content-type": "text/html" }),
        text: "gone",
      }),
    ).toBeNull();
  });

  it("holds the same status titles as the server's error module", () => {
    expect(PROBLEM_TITLES).toEqual(STATUS_TITLES);
  });

  it("prefers a literal path over a template", () => {
    expect(v.operations().indexOf("POST /v1/things/{id}:stop")).toBeLessThan(
      v.operations().indexOf("GET /v1/things/{id}"),
    );
  });
});
