-- Outbox dispatcher that keeps up (#16 item 5): docs/decisions.md "Workers that keep up".
-- seq: the order events were written in (for one resource, the order of its changes, since a change
-- locks the resource's row before it writes the event). The dispatcher claims in seq order; a delivery
-- carries its event's seq and an ordering key (the event's subject, else its source), and waits while an
-- earlier delivery of the same key to the same subscription is pending.
ALTER TABLE "outbox_events" ADD COLUMN "seq" BIGSERIAL NOT NULL;
CREATE INDEX "outbox_events_undispatched_idx" ON "outbox_events" ("seq") WHERE "dispatched_at" IS NULL;

ALTER TABLE "webhook_deliveries" ADD COLUMN "ordering_key" TEXT;
ALTER TABLE "webhook_deliveries" ADD COLUMN "event_seq" BIGINT;
-- Claims walk the pending deliveries of each subscription in event order; the ordering check probes earlier ones of the same key.
CREATE INDEX "webhook_deliveries_pending_seq_idx" ON "webhook_deliveries" ("subscription_id", "event_seq") WHERE "status" = 'pending';
CREATE INDEX "webhook_deliveries_pending_key_idx" ON "webhook_deliveries" ("subscription_id", "ordering_key", "event_seq") WHERE "status" = 'pending';
-- Purge finds the events of a delivery quickly (the FK had no index on this side).
CREATE INDEX "webhook_deliveries_event_id_idx" ON "webhook_deliveries" ("event_id");
CREATE INDEX "dead_letters_event_id_idx" ON "dead_letters" ("event_id");

-- Wake the dispatchers: one notification per inserting statement (not per row), on the change-signal
-- channel every process already listens on (src/server/platform/change-signals.ts), topic "outbox".
-- PostgreSQL folds identical notifications of one transaction into one and sends them at commit.
CREATE FUNCTION capstan_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('capstan_changes', '{"o":"db","t":"outbox","i":null}');
  RETURN NULL;
END $$;
CREATE TRIGGER outbox_events_notify AFTER INSERT ON "outbox_events"
  FOR EACH STATEMENT EXECUTE FUNCTION capstan_outbox_notify();
