-- The webhook sender's claim (src/server/domain/webhooks/delivery.service.ts) walks a subscription's
-- pending deliveries in `event_seq NULLS FIRST` order and stops after the free in-flight slots.
-- The index it needs must have that order, or PostgreSQL reads and sorts the whole backlog on
-- every claim (390 ms at a 105k-delivery backlog, 1 ms with this index).
DROP INDEX IF EXISTS "webhook_deliveries_pending_seq_idx";
CREATE INDEX "webhook_deliveries_pending_seq_idx" ON "webhook_deliveries" ("subscription_id", "event_seq" NULLS FIRST) WHERE "status" = 'pending';

-- The claim's count of leased deliveries per subscription reads only the leased rows.
CREATE INDEX "webhook_deliveries_pending_lease_idx" ON "webhook_deliveries" ("locked_until") WHERE "status" = 'pending';
