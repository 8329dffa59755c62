import type { TUsageCategory } from "@/server/domain/usage/usage.contract";

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });
const dateOnly = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium" });
const number = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

export function formatDateTime(iso: string | null | undefined, empty = "Never"): string {
  return iso ? dateTime.format(new Date(iso)) : empty;
}

export function formatDate(iso: string): string {
  return dateOnly.format(new Date(iso));
}

export function formatUnits(n: number): string {
  return number.format(n);
}

export const CATEGORY_LABEL: Record<TUsageCategory, string> = {
  ai_tokens: "AI tokens",
  runtime: "Runtime",
  provider_call: "Provider calls",
  storage: "Storage",
};

export const ROLE_OPTIONS = ["owner", "admin", "developer", "viewer"] as const;
export const PLAN_OPTIONS = ["free", "team", "enterprise"] as const;

export function titleCase(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const BYTE_UNITS = ["bytes", "KiB", "MiB", "GiB", "TiB"];

/** 1536 -> "1.5 KiB"; 1 -> "1 byte". */
export function formatBytes(n: number): string {
  if (n === 1) return "1 byte";
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : number.format(Math.round(value * 10) / 10)} ${BYTE_UNITS[unit]}`;
}

/** 840 -> "840 ms"; 12_345 -> "12.3 s". */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${formatUnits(ms)} ms` : `${number.format(Math.round(ms / 100) / 10)} s`;
}
