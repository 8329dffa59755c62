import { describe, expect, it } from "vitest";
import { AppError, toAppError } from "./errors";
import { isDatabaseUnavailable } from "./db-unavailable";

describe("isDatabaseUnavailable", () => {
  it("recognises refused and exhausted connections however they are wrapped", () => {
    const tooMany = Object.assign(new Error("sorry, too many clients already"), { code: "53300", severity: "FATAL" });
    expect(isDatabaseUnavailable(tooMany)).toBe(true);
    expect(isDatabaseUnavailable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("query_wait_timeout"), { code: "08P01" }))).toBe(true);
    // Prisma's known error around the driver adapter's error.
    const prisma = Object.assign(new Error("Too many database connections opened"), {
      name: "PrismaClientKnownRequestError",
      code: "P2037",
      meta: { driverAdapterError: { cause: { kind: "TooManyConnections" } } },
    });
    expect(isDatabaseUnavailable(prisma)).toBe(true);
    expect(
      isDatabaseUnavailable(
        new Error("wrapped", { cause: new Error("wrapped", { cause: { kind: "DatabaseNotReachable" } }) }),
      ),
    ).toBe(true);
  });

  it("leaves everything else alone (an upstream reset, a constraint, a plain bug)", () => {
    expect(
      isDatabaseUnavailable(Object.assign(new Error("socket hang up"), { code: "ECONNRESET", syscall: "read" })),
    ).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("x is undefined"))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });

  it("toAppError answers them 503 database_unavailable with Retry-After", () => {
    const e = toAppError(Object.assign(new Error("too many clients"), { code: "53300" }));
    expect(e).toBeInstanceOf(AppError);
    expect([e.status, e.code, e.reason, e.headers["retry-after"]]).toEqual([
      503,
      "unavailable",
      "database_unavailable",
      "2",
    ]);
    expect(toAppError(new TypeError("bug")).status).toBe(500);
  });
});
