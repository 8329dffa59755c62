import { z } from "zod";

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Strict ISO 8601 UTC with `Z`, fractional seconds optional, real calendar dates. */
export function isTimestamp(value: string): boolean {
  const m = ISO_UTC.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12) return false;
  if (day < 1 || day > daysInMonth(year, month)) return false;
  return hour <= 23 && minute <= 59 && second <= 59;
}

export const zTimestamp = z
  .string()
  .refine(isTimestamp, "must be an ISO 8601 UTC timestamp ending in Z with a valid calendar date");

/** Wire form of every timestamp we emit: milliseconds, UTC, `Z`. */
export function iso(date: Date): string {
  return date.toISOString();
}

export function isoOrNull(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}

/** `YYYY-MM` of the UTC month containing `date`. */
export function utcMonth(date = new Date()): string {
  return date.toISOString().slice(0, 7);
}

/** First instant of the UTC month after `date`. */
export function nextUtcMonthStart(date = new Date()): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
}
