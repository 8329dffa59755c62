import { describe, expect, it } from "vitest";
import {
  AppError,
  ERROR_CATALOGUE,
  ERROR_CODES,
  PROBLEM_BASE,
  STATUS_TITLES,
  codeForStatus,
  issuePath,
  problemBody,
  problemResponse,
  toAppError,
  toProblem,
  zodIssuesToErrors,
} from "./errors";

const ctx = { instance: "/api/v1/products/prod_x", correlationId: "evt_01hhhhhhhhhhhhhhhhhhhhhhhh" };
const REQUIRED = ["type", "title", "status", "detail", "instance", "code", "correlation_id"] as const;

describe("toProblem", () => {
  it.each(ERROR_CODES)("has every required field for %s, with the catalogue status and title", (code) => {
    const problem = toProblem(new AppError(code, "something happened"), ctx);
    for (const field of REQUIRED) expect(problem[field], field).toBeDefined();
    expect(problem).toMatchObject({
      type: PROBLEM_BASE + code,
      title: ERROR_CATALOGUE[code].title,
      status: ERROR_CATALOGUE[code].status,
      detail: "something happened",
      instance: ctx.instance,
      code,
      correlation_id: ctx.correlationId,
    });
    // Optional members are absent when not given.
    expect(problem).not.toHaveProperty("reason");
    expect(problem).not.toHaveProperty("errors");
  });

  it("uses the reason for type and carries reason, errors and extensions", () => {
    const err = new AppError("conflict", "version is in use", {
      reason: "version_in_use",
      errors: [{ path: "/version", message: "in use" }],
      extensions: { retry_after_seconds: 5 },
    });
    const problem = toProblem(err, ctx);
    expect(problem.type).toBe(PROBLEM_BASE + "version_in_use");
    expect(problem.reason).toBe("version_in_use");
    expect(problem.errors).toEqual([{ path: "/version", message: "in use" }]);
    expect(problem.retry_after_seconds).toBe(5);
    expect(problem.status).toBe(409);
  });

  it("omits an empty errors list", () => {
    expect(toProblem(new AppError("validation_failed", "bad", { errors: [] }), ctx)).not.toHaveProperty("errors");
  });
});

describe("AppError status override", () => {
  it.each([405, 413, 415])("bad_request may carry %i", (status) => {
    expect(new AppError("bad_request", "x", { status }).status).toBe(status);
  });

  it.each([
    ["bad_request", 500, 400],
    ["bad_request", 404, 400],
    ["not_found", 413, 404],
    ["forbidden", 413, 403],
    ["internal", 502, 500],
  ] as const)("%s with disallowed status %i falls back to %i", (code, status, expected) => {
    expect(new AppError(code, "x", { status }).status).toBe(expected);
  });
});

describe("problem documents agree with their response", () => {
  it.each([
    ["bad_request", 405],
    ["bad_request", 413],
    ["bad_request", 415],
    ["not_found", 410],
    ["unavailable", 502],
    ["unavailable", 504],
  ] as const)("%s carried at %i has that status and its title", async (code, status) => {
    const res = problemResponse(new AppError(code, "x", { status }), ctx);
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ status, title: STATUS_TITLES[status], code });
  });

  it("every default status of the catalogue has its catalogue title", () => {
    for (const c of ERROR_CODES) expect(STATUS_TITLES[ERROR_CATALOGUE[c].status]).toBe(ERROR_CATALOGUE[c].title);
  });

  it.each(Object.keys(STATUS_TITLES).map(Number))(
    "problemBody(%i) says that status, its title and a catalogue code",
    (status) => {
      const body = JSON.parse(problemBody(status, "d", { reason: "why" }));
      expect(body).toMatchObject({
        status,
        title: STATUS_TITLES[status],
        detail: "d",
        reason: "why",
        type: PROBLEM_BASE + "why",
      });
      expect(ERROR_CODES).toContain(body.code);
      expect(codeForStatus(status)).toBe(body.code);
    },
  );
});

describe("toAppError", () => {
  it("returns an AppError unchanged", () => {
    const err = new AppError("not_found", "gone");
    expect(toAppError(err)).toBe(err);
  });

  it.each([
    new Error("connection to postgres://admin:hunter2@db failed"),
    new TypeError("Cannot read properties of undefined (reading 'hunter2')"),
    "hunter2 thrown as a string",
    { message: "hunter2 in an object" },
    undefined,
  ])("turns %s into a generic internal error", (thrown) => {
    const err = toAppError(thrown);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe("internal");
    expect(err.status).toBe(500);
    expect(err.message).not.toContain("hunter2");
    expect(err.cause).toBe(thrown);
    expect(JSON.stringify(toProblem(err, ctx))).not.toContain("hunter2");
  });
});

describe("problemResponse", () => {
  it("is application/problem+json with the correlation id and the error's headers", async () => {
    const err = new AppError("unauthenticated", "token expired", {
      reason: "token_expired",
      headers: { "www-authenticate": 'Bearer error="invalid_token"' },
    });
    const res = problemResponse(err, ctx);
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("x-correlation-id")).toBe(ctx.correlationId);
    expect(res.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
    expect(await res.json()).toEqual(toProblem(err, ctx));
  });

  it("merges context headers and uses an overridden status", async () => {
    const err = new AppError("bad_request", "too big", { status: 413, reason: "payload_too_large" });
    const res = problemResponse(err, { ...ctx, headers: { "x-extra": "1" } });
    expect(res.status).toBe(413);
    expect(res.headers.get("x-extra")).toBe("1");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.status).toBe(413);
    expect(body.code).toBe("bad_request");
  });

  it("answers 500 without leaking an unknown error's message", async () => {
    const res = problemResponse(new Error("secret stack detail"), ctx);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("secret stack detail");
    expect(JSON.parse(text)).toMatchObject({ code: "internal", correlation_id: ctx.correlationId });
  });
});

describe("zod issue conversion", () => {
  it("maps issue paths to slash paths", () => {
    expect(issuePath(["a", 0, "b"])).toBe("/a/0/b");
    expect(
      zodIssuesToErrors([
        { path: ["name"], message: "required" },
        { path: [], message: "bad object" },
      ]),
    ).toEqual([
      { path: "/name", message: "required" },
      { path: "/", message: "bad object" },
    ]);
  });
});
