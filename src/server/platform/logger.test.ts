import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "./env";
import { logger, redact } from "./logger";

let out: string[];
let err: string[];

beforeEach(() => {
  out = [];
  err = [];
  vi.spyOn(process.stdout, "write").mockImplementation(
    ((chunk: string) => out.push(String(chunk)) > 0) as typeof process.stdout.write,
  );
  vi.spyOn(process.stderr, "write").mockImplementation(
    ((chunk: string) => err.push(String(chunk)) > 0) as typeof process.stderr.write,
  );
});
afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.LOG_LEVEL;
  resetEnvCache();
});

function level(l: string): void {
  process.env.LOG_LEVEL = l;
  resetEnvCache();
}
const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe("logger", () => {
  it("writes one JSON line per call: time, level name, msg and the fields; warn and error on stderr", () => {
    level("debug");
    logger.debug("d", { a: 1 });
    logger.info("i", { correlation_id: "evt_1", max_tokens_per_call: 5, ai_tokens: 7 });
    logger.warn("w");
    logger.error("e", { error: "Error: x\n    at f (a.ts:1:1)" });
    expect(out.every((l) => l.endsWith("\n") && l.split("\n").length === 2)).toBe(true);
    const [d, i] = parsed(out);
    expect(d).toMatchObject({ level: "debug", msg: "d", a: 1 });
    expect(new Date(String(d!.time)).toISOString()).toBe(d!.time);
    expect(i).toMatchObject({ level: "info", msg: "i", correlation_id: "evt_1", max_tokens_per_call: 5, ai_tokens: 7 });
    expect(parsed(err)).toMatchObject([
      { level: "warn", msg: "w" },
      { level: "error", msg: "e", error: "Error: x\n    at f (a.ts:1:1)" },
    ]);
    expect(d).not.toHaveProperty("pid");
  });

  it("honours LOG_LEVEL at each call, silent included", () => {
    level("warn");
    logger.info("hidden");
    logger.warn("shown");
    expect(out).toEqual([]);
    expect(parsed(err).map((l) => l.msg)).toEqual(["shown"]);
    level("silent");
    logger.error("nothing");
    expect(err).toHaveLength(1);
    level("info");
    logger.debug("hidden");
    logger.info("shown");
    expect(parsed(out).map((l) => l.msg)).toEqual(["shown"]);
  });

  it("redacts every secret-bearing field, by path and by name at any depth, without the value reaching the line", () => {
    level("info");
    const secret = "CAPSTAN-SECRET-0123456789";
    logger.info("x", {
      accessToken: secret,
      verificationToken: secret,
      idToken: secret,
      privateJwkSealed: secret,
      secretSealed: secret,
      passwordHash: secret,
      client_secret: secret,
      apiKey: secret,
      authorization: secret,
      plaintext: secret,
      request: { token: secret, refresh_token: secret, headers: { cookie: secret, host: "h" } },
      headers: { "set-cookie": secret, "x-api-key": secret, "proxy-authorization": secret },
      deep: [{ a: { b: { c: { password: secret } } } }],
      binding_id: "pbd_1",
    });
    expect(out.join("")).not.toContain(secret);
    const [line] = parsed(out);
    expect(line).toMatchObject({
      accessToken: "[redacted]",
      verificationToken: "[redacted]",
      request: { token: "[redacted]", headers: { host: "h" } },
      binding_id: "pbd_1",
    });
  });
});

describe("redact", () => {
  it("censors secret-looking names, keeps token counts, leaves dates and primitives", () => {
    const at = new Date(0);
    expect(
      redact({
        secret: "s",
        max_tokens: 3,
        input_tokens: 2,
        refresh_token: "r",
        nested: [{ api_key: "k", at }],
        n: null,
      }),
    ).toEqual({
      secret: "[redacted]",
      max_tokens: 3,
      input_tokens: 2,
      refresh_token: "[redacted]",
      nested: [{ api_key: "[redacted]", at }],
      n: null,
    });
    expect(redact("plain")).toBe("plain");
  });
});
