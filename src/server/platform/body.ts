import { AppError } from "./errors";
import { assertSafeInput } from "./hostile-input";

/** Reads a request body as text, up to `max` bytes; past that it is a 413 problem. */
export async function readBodyLimited(req: Request, max: number): Promise<string> {
  return (await readBodyBytes(req, max)).toString("utf8");
}

/** Reads a request body's raw bytes up to `max`; past that it is a 413 problem. */
export async function readBodyBytes(req: Request, max: number): Promise<Buffer> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > max) throw tooLarge(max);
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The 413 problem of a body past `max` bytes (every transport's body reader). */
export function tooLarge(max: number): AppError {
  return new AppError("bad_request", `The request body exceeds ${max} bytes`, {
    status: 413,
    reason: "payload_too_large",
    extensions: { limit_bytes: max },
  });
}

/**
 * Parses a JSON request body. An empty body is `{}` (trpc-to-openapi would
 * otherwise answer 415/400 to a bodiless POST); a non-JSON content type with a
 * body is 415; text that is not JSON is 400; a string with a NUL or an
 * unpaired surrogate, or nesting past MAX_JSON_DEPTH, is 400 naming the field.
 */
export function parseJsonBody(text: string, contentType: string | null): unknown {
  if (text.trim() === "") return {};
  if (contentType && !/^application\/([\w.+-]*\+)?json\b/i.test(contentType)) {
    throw new AppError("bad_request", "Request bodies must be application/json", {
      status: 415,
      reason: "unsupported_media_type",
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new AppError("bad_request", `The request body is not valid JSON: ${(err as Error).message}`, {
      reason: "malformed_json",
    });
  }
  assertSafeInput(value, "request body");
  return value;
}

/**
 * A request-body field as text: strings as they are, numbers and booleans printed, anything
 * else (an object, an array, null) the fallback — never "[object Object]".
 */
export function fieldText(v: unknown, fallback = ""): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  return fallback;
}
