import type { Invoice } from "@/generated/prisma/client";
import { AppError } from "@/server/platform/errors";
import { CURRENCIES, CURRENCY_CODES, type TCurrency } from "./currencies";

/**
 * Money (docs/decisions.md "Billing"): integers only. Minor units (cents) for
 * payments, grants and refunds; micros (millionths of the major unit) for
 * usage, the ledger and balances. Arithmetic is BigInt; a number crosses the
 * wire only when it is a safe integer.
 */

export { CURRENCIES, CURRENCY_CODES, formatMicros, formatMinor, type TCurrency } from "./currencies";

export const MICROS_PER_MAJOR = BigInt(1_000_000);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function isCurrency(code: string): code is TCurrency {
  return Object.prototype.hasOwnProperty.call(CURRENCIES, code);
}

/** The currency or a 422 naming the field. */
export function currency(code: string, path = "/currency"): TCurrency {
  if (!isCurrency(code)) {
    throw new AppError(
      "validation_failed",
      `${code} is not a supported ISO 4217 currency (${CURRENCY_CODES.join(", ")})`,
      {
        reason: "unsupported_currency",
        errors: [{ path, message: "is not a supported currency" }],
      },
    );
  }
  return code;
}

function microsPerMinor(c: TCurrency): bigint {
  return BigInt(10) ** BigInt(6 - CURRENCIES[c]);
}

/** Minor units -> micros: exact (every exponent is <= 6). */
export function minorToMicros(minor: bigint, c: TCurrency): bigint {
  return minor * microsPerMinor(c);
}

/** Micros -> minor units, truncated toward zero (a balance never shows money it does not hold). */
export function microsToMinorTrunc(micros: bigint, c: TCurrency): bigint {
  return micros / microsPerMinor(c); // BigInt division truncates toward zero
}

/** n / d rounded half up (away from zero at .5 for positives; n >= 0, d > 0). */
export function divRoundHalfUp(n: bigint, d: bigint): bigint {
  if (n < BigInt(0) || d <= BigInt(0)) throw new RangeError("divRoundHalfUp takes n >= 0 and d > 0");
  return (n * BigInt(2) + d) / (d * BigInt(2));
}

export type TUnitPrices = { inputTokensPerMillion: bigint; outputTokensPerMillion: bigint; perCall: bigint };

/**
 * A call's price in micros: Σ(units × unit price) computed exactly (token
 * prices are per million tokens, so the sum is in micro-micros) and rounded
 * once, half up, to micros.
 */
export function priceCall(p: TUnitPrices, usage: { inputTokens: number; outputTokens: number; calls: number }): bigint {
  const million = BigInt(1_000_000);
  const exact =
    BigInt(usage.inputTokens) * p.inputTokensPerMillion +
    BigInt(usage.outputTokens) * p.outputTokensPerMillion +
    BigInt(usage.calls) * p.perCall * million;
  return divRoundHalfUp(exact, million);
}

/** A bigint as a JSON number; refuses (500-worthy) anything outside the safe range rather than lose precision. */
export function toWire(v: bigint): number {
  if (v > MAX_SAFE || v < -MAX_SAFE) throw new RangeError(`amount ${v} is outside the safe integer range`);
  return Number(v);
}

/** A wire integer as bigint (zod has already checked it is a safe integer). */
export function fromWire(v: number): bigint {
  if (!Number.isSafeInteger(v)) throw new RangeError(`amount ${v} is not a safe integer`);
  return BigInt(v);
}

/** What is still owed on an invoice: due less paid less credited (minor units). */
export function remainingMinor(i: Pick<Invoice, "amountDueMinor" | "amountPaidMinor" | "creditedMinor">): bigint {
  return i.amountDueMinor - i.amountPaidMinor - i.creditedMinor;
}
