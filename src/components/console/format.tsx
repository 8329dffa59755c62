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
