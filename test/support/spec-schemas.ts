import { z } from "zod";

/**
 * Response shapes written from the TEXT of ../shared/spec/service-spec.md,
 * deliberately not imported from src/: a test that validates against the
 * application's own zod contracts would agree with any bug in them.
 */

/** Spec 2.1 identifier: `<prefix>_` + [0-7] + 25 chars of lower-case base32 without i, l, o, u. */
export const ID_BODY = "[0-7][0-9a-hjkmnp-tv-z]{25}";

export function idRegex(prefix: string): RegExp {
  return new RegExp(`^${prefix}_${ID_BODY}$`);
}

export function zSpecId(prefix: string) {
  return z.string().regex(idRegex(prefix), `must be a ${prefix}_ id`);
}

/** Spec 2.1: `ws_` ids plus the special `ws_platform`. */
export const zWorkspaceRef = z
  .string()
  .refine((v) => v === "ws_platform" || idRegex("ws").test(v), "must be a ws_ id or ws_platform");

export const CORRELATION_ID_RE = /^evt_[0-7][0-9a-hjkmnp-tv-z]{25}$/;

/** Spec 2.1 timestamp: ISO 8601 UTC ending in Z, optional fraction, real calendar date. */
const TS_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z$/;
export const zTimestamp = z.string().refine((v) => {
  const m = TS_RE.exec(v);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const dim = mo === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31;
  return d >= 1 && d <= dim;
}, "must be an ISO 8601 UTC timestamp ending in Z");

/** Spec 2.1 month: four digits, a hyphen, two digits. */
export const zMonth = z.string().regex(/^\d{4}-\d{2}$/);

/** Spec 7: the problem document. Extension members are allowed (RFC 9457). */
export const PROBLEM_CODES = [
  "bad_request",
  "unauthenticated",
  "forbidden",
  "not_found",
  "conflict",
  "validation_failed",
  "rate_limited",
  "internal",
  "unavailable",
] as const;

export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  instance: z.string(),
  code: z.enum(PROBLEM_CODES),
  correlation_id: z.string().regex(CORRELATION_ID_RE),
  reason: z.string().optional(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type TProblem = z.infer<typeof Problem>;

/** Spec 2.15 plan record. */
export const PLAN_NAMES = ["free", "team", "enterprise"] as const;
export const USAGE_CATEGORIES = ["ai_tokens", "runtime", "provider_call", "storage"] as const;

export const Plan = z.object({
  id: zWorkspaceRef,
  workspace_id: zWorkspaceRef,
  plan: z.enum(PLAN_NAMES),
  entitlements: z.object({
    ai_tokens: z.boolean(),
    runtime: z.boolean(),
    provider_call: z.boolean(),
    storage: z.boolean(),
  }),
  created_at: zTimestamp,
  updated_at: zTimestamp,
});
export type TPlan = z.infer<typeof Plan>;

/** Spec 2.15 budget record. */
export const Budget = z.object({
  id: z.string(),
  workspace_id: zWorkspaceRef,
  usage_category: z.enum(USAGE_CATEGORIES),
  month: zMonth,
  limit_units: z.number().min(0).nullable(),
  used_units: z.number().min(0),
  reserved_units: z.number().min(0),
  created_at: zTimestamp,
  updated_at: zTimestamp,
});
export type TBudget = z.infer<typeof Budget>;

/** Spec 2.15 budget list: next_cursor is always null. */
export const Budgets = z.object({ items: z.array(Budget), next_cursor: z.null() });

/** Spec 4.1 / design "Lists": {items, next_cursor}. */
export function Page<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}

/** Workspace fields are "not shown" in the spec: only the id is asserted. */
export const WorkspaceRef = z.object({ id: zWorkspaceRef });

/** Parses and returns `value`, failing with zod's readable message. */
export function expectShape<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) {
    throw new Error(
      `response does not match the spec schema: ${z.prettifyError(r.error)}\n${JSON.stringify(value, null, 2)}`,
    );
  }
  return r.data;
}
