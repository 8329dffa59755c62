import { describe, expect, it } from "vitest";
import { AppError } from "./errors";
import { newId } from "./ids";
import { CORRELATION_HEADER, resolveCorrelation } from "./correlation";

const EVT = /^evt_[0-7][0-9a-hjkmnp-tv-z]{25}$/;
const withHeader = (value: string) => new Headers({ [CORRELATION_HEADER]: value });

describe("resolveCorrelation", () => {
  it("mints a fresh evt_ id when there is no header", () => {
    const a = resolveCorrelation(new Headers());
    const b = resolveCorrelation(new Headers());
    expect(a.correlationId).toMatch(EVT);
    expect(a.clientReference).toBeUndefined();
    expect(a.correlationId).not.toBe(b.correlationId);
  });

  it("adopts a client's evt_ id, whatever the header's case", () => {
    const id = newId("evt");
    expect(resolveCorrelation(withHeader(id))).toEqual({ correlationId: id });
    expect(resolveCorrelation(new Headers({ "X-Correlation-Id": id }))).toEqual({ correlationId: id });
  });

  it.each(["a", "req-12345", "x".repeat(64), newId("usr"), "EVT_01HHHHHHHHHHHHHHHHHHHHHHHH"])(
    "keeps %s as the client reference next to a fresh id",
    (value) => {
      const res = resolveCorrelation(withHeader(value));
      expect(res.clientReference).toBe(value);
      expect(res.correlationId).toMatch(EVT);
      expect(res.correlationId).not.toBe(value);
    },
  );

  it.each([
    ["65 characters", "x".repeat(65)],
    ["an empty value", ""],
  ])("rejects %s with bad_request", (_label, value) => {
    let thrown: unknown;
    try {
      resolveCorrelation(withHeader(value));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe("bad_request");
    expect((thrown as AppError).status).toBe(400);
    expect((thrown as AppError).errors?.[0]?.path).toBe("/headers/x-correlation-id");
  });
});
