import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";

/** Spec 4.2 domains; the Domain fields are ours (docs/decisions.md "Custom domains"). */
/** `released`: another workspace proved the hostname first (its TXT check passed); this claim routes nothing, only delete remains. */
export const DOMAIN_STATES = ["pending_verification", "verified", "failed", "released"] as const;
export type TDomainState = (typeof DOMAIN_STATES)[number];
export const DOMAIN_ENVIRONMENTS = ["staging", "production"] as const;

export const DOMAIN_FAILURE_CODES = [
  "verification_record_missing",
  "verification_record_mismatch",
  "routing_record_missing",
  "routing_record_mismatch",
  "dns_unavailable",
  "claimed_elsewhere",
] as const;

export const ZDomainRequest = z
  .strictObject({
    product_id: zId("prod"),
    environment_type: z.enum(DOMAIN_ENVIRONMENTS),
    /** Normalised on the way in: lower case, IDNA punycode, no trailing dot. */
    hostname: z.string().min(1).max(300),
  })
  .meta({ id: "DomainRequest" });

const ZDnsRecord = z.object({
  type: z.enum(["TXT", "CNAME", "A", "AAAA", "ALIAS"]),
  name: z.string(),
  value: z.string(),
});

export const ZDomain = z
  .object({
    id: zId("dom"),
    workspace_id: zWorkspaceId,
    product_id: zId("prod"),
    environment_type: z.enum(DOMAIN_ENVIRONMENTS),
    hostname: z.string(),
    /** True when the hostname is a registrable domain itself (example.com): it needs A/AAAA (or ALIAS) records, not a CNAME. */
    apex: z.boolean(),
    status: z.enum(DOMAIN_STATES),
    /** The TXT record proving ownership. Not a secret: it is published in DNS. */
    verification_record: ZDnsRecord,
    /** The record(s) that send the hostname's traffic to Capstan. */
    routing_records: z.array(ZDnsRecord),
    /** A verification was requested and has not run yet. */
    check_pending: z.boolean(),
    /** Why the last check failed, in words; null when it passed or never ran. */
    failure: z.object({ code: z.enum(DOMAIN_FAILURE_CODES), message: z.string() }).nullable(),
    last_checked_at: z.string().nullable(),
    verified_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Domain" });
export type TDomain = z.infer<typeof ZDomain>;

export const ZDomainList = zPage(ZDomain).meta({ id: "Domains" });

export const ZDomainListQuery = zListQuery.extend({ product_id: zId("prod").optional() });
export const ZDomPath = z.object({ ws: zWorkspaceId, dom: zId("dom") });
