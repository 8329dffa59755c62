-- Rotation without downtime (issue #25).

-- Signing keys: published before they sign (activates_at), kept published
-- until every token they signed has expired (signed_until + clock skew).
ALTER TABLE "signing_keys" ADD COLUMN "activates_at" TIMESTAMPTZ(3);
ALTER TABLE "signing_keys" ADD COLUMN "signed_until" TIMESTAMPTZ(3);
ALTER TABLE "signing_keys" ADD COLUMN "retired_reason" TEXT;
-- Existing keys have always signed: they are active from their creation. Which
-- of them signed the personal API tokens still in circulation is unknown, so
-- each is assumed to have signed the longest-lived unrevoked one (and at least
-- an hour of short-lived tokens): none is retired before those expire.
UPDATE "signing_keys" SET "activates_at" = "created_at";
UPDATE "signing_keys"
   SET "signed_until" = GREATEST(
         CURRENT_TIMESTAMP + INTERVAL '1 hour',
         COALESCE((SELECT max("expires_at") FROM "api_tokens" WHERE "revoked_at" IS NULL), CURRENT_TIMESTAMP))
 WHERE "status" <> 'retired';
UPDATE "signing_keys" SET "retired_at" = COALESCE("retired_at", CURRENT_TIMESTAMP), "retired_reason" = 'scheduled'
 WHERE "status" = 'retired';
ALTER TABLE "signing_keys" ALTER COLUMN "activates_at" SET NOT NULL;
ALTER TABLE "signing_keys" ALTER COLUMN "activates_at" SET DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "signing_keys" ADD CONSTRAINT "signing_keys_status_check" CHECK ("status" IN ('next', 'active', 'retiring', 'retired'));

-- Webhook subscriptions: the previous secret keeps signing until it expires.
ALTER TABLE "event_subscriptions" ADD COLUMN "previous_secret_sealed" TEXT;
ALTER TABLE "event_subscriptions" ADD COLUMN "previous_secret_expires_at" TIMESTAMPTZ(3);
ALTER TABLE "event_subscriptions" ADD COLUMN "secret_rotated_at" TIMESTAMPTZ(3);

-- Service identities: the previous client secret keeps working until it expires.
ALTER TABLE "service_identities" ADD COLUMN "previous_secret_hash" TEXT;
ALTER TABLE "service_identities" ADD COLUMN "previous_secret_rotated_at" TIMESTAMPTZ(3);
ALTER TABLE "service_identities" ADD COLUMN "previous_secret_expires_at" TIMESTAMPTZ(3);
ALTER TABLE "service_identities" ADD COLUMN "previous_secret_revoked_at" TIMESTAMPTZ(3);
