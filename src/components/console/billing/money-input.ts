import { CURRENCIES, type TCurrency } from "@/server/domain/billing/currencies";

/**
 * Amounts typed in a currency's major unit, parsed by string arithmetic (no
 * floats): "0.15" -> 150 000 micros, "29.00" -> 2 900 minor units. null when
 * the text is not a valid non-negative amount at that precision.
 */
export function parseMicros(text: string): number | null {
  const m = /^(\d{1,9})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]! + (m[2] ?? "").padEnd(6, "0"));
}

export function parseMinor(text: string, currency: TCurrency): number | null {
  const exp = CURRENCIES[currency];
  const m = /^(\d{1,9})(?:\.(\d+))?$/.exec(text.trim());
  if (!m || (m[2] ?? "").length > exp) return null;
  return Number(m[1]! + (m[2] ?? "").padEnd(exp, "0"));
}

/** The inverse for a form's initial value: 2900 minor -> "29.00". */
export function minorToText(minor: number, currency: TCurrency): string {
  const exp = CURRENCIES[currency];
  const s = String(minor).padStart(exp + 1, "0");
  return exp ? `${s.slice(0, -exp)}.${s.slice(-exp)}` : s;
}

/** 150 000 micros -> "0.15". */
export function microsToText(micros: number): string {
  const s = String(micros).padStart(7, "0");
  const frac = s.slice(-6).replace(/0+$/, "");
  return frac ? `${s.slice(0, -6)}.${frac}` : s.slice(0, -6);
}
