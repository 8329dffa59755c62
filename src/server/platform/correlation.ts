import { isId, newId } from "./ids";
import { AppError } from "./errors";

export const CORRELATION_HEADER = "x-correlation-id";

/**
 * Every request gets an `evt_` correlation id. A client's X-Correlation-Id is
 * adopted when it is itself an evt_ id; any other 1..64 char value is kept as
 * the client's own reference (`clientReference`) next to a fresh id. Lengths
 * outside 1..64 are a 400.
 */
export function resolveCorrelation(headers: Pick<Headers, "get">): { correlationId: string; clientReference?: string } {
  const raw = headers.get(CORRELATION_HEADER);
  if (raw === null) return { correlationId: newId("evt") };
  if (raw.length < 1 || raw.length > 64) {
    throw new AppError("bad_request", "X-Correlation-Id must be 1..64 characters", {
      reason: "invalid_header",
      errors: [{ path: "/headers/x-correlation-id", message: "must be 1..64 characters" }],
    });
  }
  if (isId("evt", raw)) return { correlationId: raw };
  return { correlationId: newId("evt"), clientReference: raw };
}
