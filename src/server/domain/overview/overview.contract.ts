import { z } from "zod";
import { ENVIRONMENT_TYPES } from "@/server/domain/deployments/deployments.contract";

/**
 * The workspace overview (issue #21 item 4): what is live per environment,
 * this month's spend, the failures of the last 7 days that need action, and
 * usage and spend over time by UTC day. Money is integer micros with its
 * currency (docs/decisions.md "Billing"); the console formats it.
 */

export const USAGE_RANGES = ["7d", "30d", "90d"] as const;
export type TUsageRange = (typeof USAGE_RANGES)[number];
/** The longest since..until span, in days (inclusive). */
export const MAX_RANGE_DAYS = 366;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` naming a real calendar day. */
export function isDay(value: string): boolean {
  const m = DAY.exec(value);
  if (!m) return false;
  const d = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

const zDay = z.string().refine(isDay, "must be a calendar day, YYYY-MM-DD (UTC)");

export const ZUsageSeriesQuery = z.object({
  /** The last 7, 30 or 90 UTC days, today included. The default when neither range nor since/until is given: 30d. */
  range: z.enum(USAGE_RANGES).optional(),
  /** First UTC day (inclusive); with `until`, instead of `range`. */
  since: zDay.optional(),
  /** Last UTC day (inclusive); at most 366 days after `since`. */
  until: zDay.optional(),
});
export type TUsageSeriesQuery = z.infer<typeof ZUsageSeriesQuery>;

const ZMoney = z.object({ currency: z.string(), amount_micros: z.number().int() }).meta({ id: "MoneyMicros" });
export type TMoney = z.infer<typeof ZMoney>;

const ZUsageBucket = z
  .object({
    /** UTC day, YYYY-MM-DD (the day the call started). */
    day: z.string(),
    /** The capability (`ai.generate`) or the product id, per series. */
    key: z.string(),
    calls: z.number().int(),
    completed: z.number().int(),
    denied: z.number().int(),
    failed: z.number().int(),
    /** Measured usage per unit (tokens, bytes, calls, ms). */
    usage: z.array(z.object({ unit: z.string(), units: z.number() })),
    /** Priced amounts per currency; empty when nothing was priced. */
    spend: z.array(ZMoney),
  })
  .meta({ id: "UsageBucket" });
export type TUsageBucket = z.infer<typeof ZUsageBucket>;

export const ZUsageSeries = z
  .object({
    since: z.string(),
    until: z.string(),
    /** Every UTC day of the range, oldest first; buckets are sparse (a day × key with no call has none). */
    days: z.array(z.string()),
    time_zone: z.literal("UTC"),
    by_capability: z.array(ZUsageBucket),
    by_product: z.array(ZUsageBucket),
    /** Names of the products in `by_product`. */
    products: z.array(z.object({ id: z.string(), name: z.string() })),
    totals: z.object({
      calls: z.number().int(),
      completed: z.number().int(),
      denied: z.number().int(),
      failed: z.number().int(),
      spend: z.array(ZMoney),
    }),
  })
  .meta({ id: "UsageSeries" });
export type TUsageSeries = z.infer<typeof ZUsageSeries>;

const ZLiveDeployment = z.object({
  id: z.string(),
  product_id: z.string(),
  product_name: z.string(),
  revision_id: z.string(),
  status: z.enum(["planned", "applying", "active"]),
  surface_id: z.string().nullable(),
  surface_url: z.string().nullable(),
  started_at: z.string().nullable(),
});

export const ZOverview = z
  .object({
    environments: z.array(
      z.object({ environment_type: z.enum(ENVIRONMENT_TYPES), deployments: z.array(ZLiveDeployment) }),
    ),
    spend_this_month: z.object({ month: z.string(), spend: z.array(ZMoney) }),
    failures: z.object({
      /** The window: the last 7 days. */
      since: z.string(),
      deployments: z.array(
        z.object({
          id: z.string(),
          product_id: z.string(),
          product_name: z.string(),
          environment_type: z.enum(ENVIRONMENT_TYPES),
          reason_code: z.string().nullable(),
          at: z.string(),
        }),
      ),
      /** Denied Bridge calls grouped by reason, most frequent first. */
      denied: z.array(z.object({ reason: z.string(), count: z.number().int(), last_at: z.string() })),
      /** Deliveries that exhausted their retries and were not redelivered; null below the admin role (the dead-letter list is admin-only). */
      dead_letters: z
        .object({
          count: z.number().int(),
          latest: z.array(
            z.object({
              id: z.string(),
              event_type: z.string(),
              last_status_code: z.number().int().nullable(),
              last_error: z.string().nullable(),
              at: z.string(),
            }),
          ),
        })
        .nullable(),
      domains: z.array(
        z.object({
          id: z.string(),
          hostname: z.string(),
          failure_code: z.string().nullable(),
          failure_message: z.string().nullable(),
          at: z.string(),
        }),
      ),
    }),
  })
  .meta({ id: "WorkspaceOverview" });
export type TOverview = z.infer<typeof ZOverview>;
