import { preparedQuery } from "@/server/platform/db/client";
import { GroupCommit } from "@/server/platform/group-commit";
import { newId } from "@/server/platform/ids";
import { EVENT_TYPES } from "@/server/platform/outbox";
import type { TTicket } from "@/server/domain/usage/leases.service";
import type { TEvidenceGrant } from "@/server/domain/source/evidence.service";

/**
 * The record of an executed invocation (issue #34 item 3): its admission and
 * execution, the settlement of its runtime ticket to the measured duration
 * (a lease draw: capstan_settle_drawn_batch; a per-call reservation:
 * capstan_settle_batch), the workspace's grants of its evidence blobs and its
 * `invocation.changed` event, in ONE statement and so one commit. Group
 * committed (platform/group-commit.ts): a lone invocation is written at once;
 * invocations that finish while a record is in flight go together in the
 * next statement, so under load the runtime budget's row is locked and the
 * WAL flushed once per batch instead of once per invocation. Nobody is
 * answered before the commit of their own batch; a failed batch is retried
 * item by item. Two named prepared statements whose texts never change: a
 * batch (every value an array, unnested) and a lone record (scalars; the
 * evidence grants stay an array), as the Bridge's records
 * (bridge/record-statement.ts).
 */
export type TInvocationRecord = {
  id: string;
  workspaceId: string;
  correlationId: string;
  admission: unknown;
  execution: unknown;
  ticket: TTicket | null;
  usedMs: number;
  grants: TEvidenceGrant[];
  event: Record<string, unknown>;
};

const RECORD_SQL = `
  WITH sd AS (SELECT capstan_settle_drawn_batch($1::text[], $2::text[], $3::float8[], $4::float8[], $5::text[], $6::bigint[], $7::bigint[]) AS n),
       sr AS (SELECT capstan_settle_batch($8::text[], $9::float8[], $10::text[], $11::bigint[]) AS n),
       upd AS (
         UPDATE invocations i SET admission = x.admission::jsonb, execution = x.execution::jsonb, updated_at = now()
           FROM unnest($12::text[], $13::text[], $14::text[]) AS x(id, admission, execution)
          WHERE i.id = x.id AND (SELECT n FROM sd) IS NOT NULL AND (SELECT n FROM sr) IS NOT NULL
         RETURNING i.id, i.updated_at),
       ev AS (
         INSERT INTO outbox_events (id, workspace_id, type, version, source, subject, correlation_id, data)
         SELECT e.id, e.ws, 'invocation.changed', $15, '/v1/workspaces/' || e.ws, e.subject, e.corr, e.data::jsonb
           FROM unnest($16::text[], $17::text[], $18::text[], $19::text[], $20::text[]) AS e(id, ws, subject, corr, data)
          WHERE e.subject IN (SELECT id FROM upd)),
       g AS (
         INSERT INTO workspace_blobs (workspace_id, sha256, content_type)
         SELECT b.ws, b.sha, b.ct FROM unnest($21::text[], $22::text[], $23::text[], $24::text[]) AS b(inv, ws, sha, ct)
          WHERE b.inv IN (SELECT id FROM upd)
         ON CONFLICT DO NOTHING)
  SELECT id, updated_at FROM upd`;

/** The same statement for one invocation. The settlement's sum is never null; the planner cannot know, so it runs first. */
const LONE_SQL = `
  WITH s AS (
         SELECT coalesce(CASE WHEN $1::text IS NOT NULL
                  THEN capstan_settle_drawn($1, $2::text, $3::float8, $4::float8, NULL, $5::bigint, NULL)::int END, 0)
              + coalesce(CASE WHEN $6::text IS NOT NULL THEN capstan_settle($6, $7::float8, NULL, NULL)::int END, 0) AS n),
       upd AS (
         UPDATE invocations SET admission = $8::jsonb, execution = $9::jsonb, updated_at = now()
          WHERE id = $2::text AND (SELECT n FROM s) IS NOT NULL
         RETURNING id, updated_at),
       ev AS (
         INSERT INTO outbox_events (id, workspace_id, type, version, source, subject, correlation_id, data)
         SELECT $10::text, $11::text, 'invocation.changed', $12::text, '/v1/workspaces/' || $11::text, upd.id, $13::text,
                $14::jsonb
           FROM upd),
       g AS (
         INSERT INTO workspace_blobs (workspace_id, sha256, content_type)
         SELECT $11::text, b.sha, b.ct FROM unnest($15::text[], $16::text[]) AS b(sha, ct)
          WHERE EXISTS (SELECT 1 FROM upd)
         ON CONFLICT DO NOTHING)
  SELECT id, updated_at FROM upd`;

async function flush(items: TInvocationRecord[]): Promise<Array<Date | null>> {
  if (items.length === 1) return [await flushOne(items[0]!)];
  const draws = items.flatMap((r) => (r.ticket?.kind === "draw" ? [{ r, t: r.ticket }] : []));
  const reservations = items.flatMap((r) =>
    r.ticket?.kind === "reservation" ? [{ r, id: r.ticket.reservation.id }] : [],
  );
  const grants = new Map<string, { inv: string; ws: string; sha: string; ct: string }>();
  for (const r of items)
    for (const g of r.grants)
      grants.set(`${r.workspaceId}\u0000${g.sha256}`, {
        inv: r.id,
        ws: r.workspaceId,
        sha: g.sha256,
        ct: g.contentType.slice(0, 255),
      });
  const gs = [...grants.values()];
  // Raw SQL on purpose: the invocation hot path's record; every row names its workspace.
  const rows = await preparedQuery<{ id: string; updated_at: Date }>("capstan_invocation_record", RECORD_SQL, [
    draws.map((d) => d.t.leaseId),
    draws.map((d) => d.r.id),
    draws.map((d) => d.t.units),
    draws.map((d) => d.r.usedMs),
    draws.map(() => null),
    draws.map((d) => d.t.hold.toString()),
    draws.map(() => null),
    reservations.map((x) => x.id),
    reservations.map((x) => x.r.usedMs),
    reservations.map(() => null),
    reservations.map(() => null),
    items.map((r) => r.id),
    items.map((r) => JSON.stringify(r.admission)),
    items.map((r) => JSON.stringify(r.execution)),
    EVENT_TYPES["invocation.changed"],
    items.map(() => newId("evt")),
    items.map((r) => r.workspaceId),
    items.map((r) => r.id),
    items.map((r) => r.correlationId),
    items.map((r) => JSON.stringify(r.event)),
    gs.map((g) => g.inv),
    gs.map((g) => g.ws),
    gs.map((g) => g.sha),
    gs.map((g) => g.ct),
  ]);
  const at = new Map(rows.map((r) => [r.id, new Date(r.updated_at)]));
  return items.map((r) => at.get(r.id) ?? null);
}

async function flushOne(r: TInvocationRecord): Promise<Date | null> {
  const draw = r.ticket?.kind === "draw" ? r.ticket : null;
  const reservation = r.ticket?.kind === "reservation" ? r.ticket.reservation.id : null;
  const grants = new Map(r.grants.map((g) => [g.sha256, g.contentType.slice(0, 255)]));
  // Raw SQL on purpose: the invocation hot path's record; every row names its workspace.
  const rows = await preparedQuery<{ id: string; updated_at: Date }>("capstan_invocation_record_one", LONE_SQL, [
    draw?.leaseId ?? null,
    r.id,
    draw?.units ?? null,
    r.usedMs,
    draw?.hold.toString() ?? null,
    reservation,
    r.usedMs,
    JSON.stringify(r.admission),
    JSON.stringify(r.execution),
    newId("evt"),
    r.workspaceId,
    EVENT_TYPES["invocation.changed"],
    r.correlationId,
    JSON.stringify(r.event),
    [...grants.keys()],
    [...grants.values()],
  ]);
  return rows[0] ? new Date(rows[0].updated_at) : null;
}

const records = new GroupCommit<TInvocationRecord, Date | null>(flush, 100);

/** Records one executed invocation (see above); resolves with its updated_at once its batch committed. */
export async function recordInvocation(r: TInvocationRecord): Promise<Date | null> {
  // The runtime draw's journal line was written at admission (synced if the call outlasted WAL_SYNC_DELAY_MS).
  return records.add(r);
}
