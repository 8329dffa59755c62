import { z } from "zod";

/**
 * The issuer's signing keys and their rotation schedule (platform admins;
 * the public halves are at /.well-known/jwks.json). See docs/decisions.md,
 * "Rotation without downtime".
 */
export const ZSigningKey = z
  .object({
    kid: z.string(),
    alg: z.literal("ES256"),
    state: z
      .enum(["next", "active", "retiring", "retired"])
      .describe(
        "next: published, not signing yet; active: signs; retiring: published until the tokens it signed expire; retired: gone from the JWKS",
      ),
    created_at: z.string(),
    activates_at: z.string().describe("When it starts (or started) signing"),
    retires_at: z.string().nullable().describe("When it leaves (or left) the JWKS; null while no newer key exists"),
    retired_at: z.string().nullable(),
    retired_reason: z.enum(["scheduled", "emergency"]).nullable(),
    signed_until: z.string().nullable().describe("The latest expiry of a token it signed (rounded up)"),
  })
  .meta({ id: "SigningKey" });

export const ZSigningKeys = z
  .object({
    items: z.array(ZSigningKey).describe("Newest first, at most 50"),
    jwks_max_age_seconds: z.number().int().describe("Cache-Control max-age of the JWKS"),
    publish_lead_seconds: z.number().int().describe("How long a new key is published before it signs"),
    clock_skew_seconds: z.number().int(),
  })
  .meta({ id: "SigningKeys" });
