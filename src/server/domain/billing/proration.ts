import { divRoundHalfUp } from "./money";

/**
 * Proration (docs/decisions.md "Proration"): the share of a monthly
 * amount for the part of the period [start, end) still to run at `at`,
 * measured in whole milliseconds and computed exactly in integers, rounded
 * once. Charges round half up (as every other price here); credit granted
 * rounds down (never grant money that was not paid for). Before the period
 * the whole amount, after it nothing.
 */
export function prorate(
  amountMinor: bigint,
  period: { start: Date; end: Date },
  at: Date,
  rounding: "half_up" | "down",
): bigint {
  if (amountMinor < BigInt(0)) throw new RangeError("prorate takes an amount >= 0");
  const total = BigInt(period.end.getTime() - period.start.getTime());
  if (total <= BigInt(0)) throw new RangeError("prorate takes a period whose end is after its start");
  let left = BigInt(period.end.getTime() - at.getTime());
  if (left < BigInt(0)) left = BigInt(0);
  if (left > total) left = total;
  const exact = amountMinor * left;
  return rounding === "half_up" ? divRoundHalfUp(exact, total) : exact / total;
}

/**
 * What an immediate change from `from` to `to` costs for the rest of the
 * period: the price difference prorated (credit for the unused time of the
 * old price, charge for the new one, netted, as Stripe does), and the
 * included credit difference prorated down. Never negative: a change that
 * lowers the price is not immediate.
 */
export function upgradeCharge(
  from: { priceMinor: bigint; includedCreditMinor: bigint },
  to: { priceMinor: bigint; includedCreditMinor: bigint },
  period: { start: Date; end: Date },
  at: Date,
): { chargeMinor: bigint; creditMinor: bigint } {
  const zero = BigInt(0);
  const dPrice = to.priceMinor - from.priceMinor;
  const dCredit = to.includedCreditMinor - from.includedCreditMinor;
  return {
    chargeMinor: dPrice > zero ? prorate(dPrice, period, at, "half_up") : zero,
    creditMinor: dCredit > zero ? prorate(dCredit, period, at, "down") : zero,
  };
}
