/**
 * ISO 4217 currencies we accept, with their exponent (digits after the
 * decimal point), and the one display formatter: integer and string
 * arithmetic only. No server imports: the console uses it too.
 */
export const CURRENCIES = {
  USD: 2,
  EUR: 2,
  GBP: 2,
  CHF: 2,
  CAD: 2,
  AUD: 2,
  SEK: 2,
  NOK: 2,
  DKK: 2,
  PLN: 2,
  JPY: 0,
  KRW: 0,
  BHD: 3,
  KWD: 3,
} as const satisfies Record<string, 0 | 2 | 3>;
export type TCurrency = keyof typeof CURRENCIES;
export const CURRENCY_CODES = Object.keys(CURRENCIES) as [TCurrency, ...TCurrency[]];

/**
 * "12.34 USD" from micros, truncated toward zero to the currency's minor unit;
 * `exact` keeps every micro digit that is not zero ("0.000580 USD").
 */
export function formatMicros(micros: number | bigint, currency: string, exact = false): string {
  const exp = (CURRENCIES as Record<string, number>)[currency] ?? 2;
  const v = BigInt(micros);
  const neg = v < BigInt(0);
  const abs = (neg ? -v : v).toString().padStart(7, "0");
  const whole = abs.slice(0, -6);
  let frac = abs.slice(-6);
  frac = exact ? frac.replace(/0+$/, "").padEnd(exp, "0") : frac.slice(0, exp);
  const digits = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${neg ? "−" : ""}${digits}${frac ? `.${frac}` : ""} ${currency}`;
}

/** "12.34 USD" from minor units. */
export function formatMinor(minor: number, currency: string): string {
  const exp = (CURRENCIES as Record<string, number>)[currency] ?? 2;
  return formatMicros(BigInt(minor) * BigInt(10) ** BigInt(6 - exp), currency);
}
