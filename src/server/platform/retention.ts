import { db } from "./db/client";
import { env } from "./env";
import { observePurge } from "./metrics";

/**
 * Retention of append-only operational rows (docs/decisions.md "Workers that
 * keep up"). A purge tick deletes, in chunks that lock their rows
 * (FOR UPDATE SKIP LOCKED, so any number of workers can run it at once, each
 * taking different rows):
 *  - outbox events dispatched more than CAPSTAN_EVENT_RETENTION_HOURS ago,
 *    with their deliveries and attempts (cascade), unless a delivery of the
 *    event is still pending or a dead letter of it is younger than
 *    CAPSTAN_DEAD_LETTER_RETENTION_DAYS (it stays redeliverable);
 *  - idempotency records past their expiry.
 * Audit records are never purged: they are the record. Invocation records
 * and money records are kept too (usage and billing read them). Budget
 * reservations delete themselves at settlement (the sweeper takes expired ones).
 */
const CHUNK = 5_000;
const MAX_CHUNKS_PER_TICK = 40;

export type TPurged = { events: number; idempotencyKeys: number };

export async function purgeExpired(now = new Date()): Promise<TPurged> {
  const cfg = env();
  const eventCutoff = new Date(now.getTime() - cfg.CAPSTAN_EVENT_RETENTION_HOURS * 3_600_000);
  const deadLetterCutoff = new Date(now.getTime() - cfg.CAPSTAN_DEAD_LETTER_RETENTION_DAYS * 86_400_000);
  const events = await inChunks(
    () => db().$executeRaw`
    DELETE FROM outbox_events WHERE id IN (
      SELECT e.id FROM outbox_events e
       WHERE e.dispatched_at < ${eventCutoff}
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
         AND NOT EXISTS (SELECT 1 FROM dead_letters l WHERE l.event_id = e.id AND l.created_at >= ${deadLetterCutoff})
       ORDER BY e.dispatched_at
       LIMIT ${CHUNK}
       FOR UPDATE OF e SKIP LOCKED)`,
  );
  const idempotencyKeys = await inChunks(
    () => db().$executeRaw`
    DELETE FROM idempotency_keys WHERE id IN (
      SELECT id FROM idempotency_keys WHERE expires_at < ${now}
       ORDER BY expires_at LIMIT ${CHUNK} FOR UPDATE SKIP LOCKED)`,
  );
  observePurge("outbox_events", events);
  observePurge("idempotency_keys", idempotencyKeys);
  return { events, idempotencyKeys };
}

async function inChunks(run: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_CHUNKS_PER_TICK; i++) {
    const n = await run();
    total += n;
    if (n < CHUNK) break;
  }
  return total;
}
