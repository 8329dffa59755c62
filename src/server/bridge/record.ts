import type { Prisma } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { Prisma as P } from "@/generated/prisma/client";
import { env } from "@/server/platform/env";
import { GroupCommit } from "@/server/platform/group-commit";
import { emitEvent } from "@/server/platform/outbox";
import { observeBridgeCall } from "@/server/platform/metrics";
import { eventData, writeRecords, type TRecord } from "./record-statement";

export type { TRecord } from "./record-statement";

/**
 * Writes the outcome of one Bridge call in one transaction: the capability
 * invocation row, capability.invocation_requested 1.4.0 and
 * capability.invocation_resulted 1.1.0 (payloads per spec 6.2/6.3), the
 * settlement of its budget reservation (the charge), and the audits a
 * denial, a blocked output or a fallback calls for. `recordCapabilityCall`
 * resolves only once that transaction committed: the response waits for it,
 * so a 2xx is never ahead of its record, charge and events.
 *
 * Resolves once committed, with the record statement's round trip in ms (null on the audited path). */
export async function recordCapabilityCall(r: TRecord): Promise<number | null> {
  observeBridgeCall({
    capability: r.capability,
    outcome: r.outcome,
    reason: r.reason,
    totalMs: r.latencyMs,
    overheadMs: r.overheadMs,
    units: r.usage.units,
  });
  if (!r.audits.length && r.revisionId) {
    if (env().CAPSTAN_BRIDGE_RECORDS === "batched") return records.add(r);
    return writeRecords([r]);
  }
  await recordAudited(r);
  return null;
}

/**
 * Records with audits (denials, blocked outputs, fallbacks) are written
 * before the response, but a burst of them must not take one pooled
 * connection each only to queue on the workspace's audit-chain lock: they are
 * group-committed, one transaction per batch of up to AUDITED_BATCH, one batch
 * in flight per process. A batch that fails is retried record by record, so
 * one bad record fails only its own call.
 */
const AUDITED_BATCH = 50;
const audited: Array<{ r: TRecord; done: (err?: unknown) => void }> = [];
let draining = false;

function recordAudited(r: TRecord): Promise<void> {
  return new Promise((resolve, reject) => {
    audited.push({
      r,
      done: (err) =>
        err === undefined ? resolve() : reject(err instanceof Error ? err : new Error("record failed", { cause: err })),
    });
    if (!draining) void drainAudited();
  });
}

async function drainAudited(): Promise<void> {
  draining = true;
  try {
    while (audited.length) {
      const batch = audited.splice(0, AUDITED_BATCH);
      try {
        // platform-scoped: one transaction settles and audits a batch of calls of any workspace (each row names its own).
        await db().$transaction(
          async (tx) => {
            await settleIn(
              tx,
              batch.map((x) => x.r),
            );
            for (const x of batch) await writeAudited(tx, x.r);
          },
          { timeout: 30_000 },
        );
        for (const x of batch) x.done();
      } catch {
        for (const x of batch) {
          // platform-scoped: the same batch, retried call by call.
          await db()
            .$transaction(async (tx) => {
              await settleIn(tx, [x.r]);
              await writeAudited(tx, x.r);
            })
            .then(
              () => x.done(),
              (err: unknown) => x.done(err ?? new Error("record failed")),
            );
        }
      }
    }
  } finally {
    draining = false;
  }
}

async function writeAudited(tx: Prisma.TransactionClient, r: TRecord): Promise<void> {
  await tx.capabilityInvocation.create({
    data: {
      id: r.id,
      workspaceId: r.workspaceId,
      productId: r.productId,
      revisionId: r.revisionId,
      serviceIdentityId: r.serviceIdentityId,
      deploymentId: r.deploymentId,
      executionId: r.executionId,
      bridgeInvocationId: r.bridgeInvocationId,
      capability: r.capability,
      action: r.action,
      outcome: r.outcome,
      reason: r.reason,
      provider: r.provider,
      bindingId: r.bindingId,
      fallbackUsed: r.fallbackUsed,
      usageUnits: r.usage.units,
      usageUnit: r.usage.unit,
      requestSummary: { ...r.requestSummary, request: r.request } as Prisma.InputJsonValue,
      outputSummary: r.outputSummary ?? undefined,
      correlationId: r.correlationId,
      latencyMs: r.latencyMs,
      overheadMs: r.overheadMs,
      requestedAt: r.requestedAt,
      finishedAt: r.finishedAt,
      chargeMicros: r.charge?.micros ?? null,
      chargeCurrency: r.charge?.currency ?? null,
      rateCardVersionId: r.charge?.rateCardVersionId ?? null,
    },
  });
  // The requested event names the revision whose contract was checked; a call
  // with no confirmed contract at all has none, so only its result is emitted.
  // The same event bodies as the batched statement (eventData), so the two paths cannot drift apart.
  const { requested, resulted } = eventData(r);
  if (r.revisionId && r.requestDescribed)
    await emitEvent(tx, {
      workspaceId: r.workspaceId,
      type: "capability.invocation_requested",
      correlationId: r.correlationId,
      subject: r.id,
      data: requested,
    });
  await emitEvent(tx, {
    workspaceId: r.workspaceId,
    type: "capability.invocation_resulted",
    correlationId: r.correlationId,
    subject: r.id,
    data: resulted,
  });
  for (const a of r.audits) {
    await writeAudit(tx, {
      workspaceId: r.workspaceId,
      actor: { kind: "service", id: r.serviceIdentityId },
      action: a.action,
      target: { kind: "capability_invocation", id: r.id },
      correlationId: r.correlationId,
      details: a.details,
    });
  }
}

/**
 * The settlements of a batch as one scalar expression: capstan_settle_batch
 * for per-call reservations and capstan_settle_drawn_batch for lease draws
 * (each takes the budget rows in id order, as reservations do); null when no
 * record of the batch held either.
 */
function settleCall(batch: TRecord[]): P.Sql | null {
  // The charge goes with the settlement: a prepaid call's wallet hold is released and its price debited there.
  const charge = (r: TRecord) => (r.charge ? r.charge.micros.toString() : null);
  const rsv = batch.flatMap((r) =>
    r.settle?.ticket.kind === "reservation"
      ? [{ s: r.settle, id: r.settle.ticket.reservation.id, charge: charge(r) }]
      : [],
  );
  const drw = batch.flatMap((r) =>
    r.settle?.ticket.kind === "draw" ? [{ s: r.settle, d: r.settle.ticket, charge: charge(r) }] : [],
  );
  const parts: P.Sql[] = [];
  if (rsv.length) {
    parts.push(P.sql`(SELECT capstan_settle_batch(ARRAY[${P.join(rsv.map((x) => P.sql`${x.id}::text`))}]::text[],
    ARRAY[${P.join(rsv.map((x) => P.sql`${x.s.units}::float8`))}]::float8[],
    ARRAY[${P.join(rsv.map((x) => P.sql`${x.s.usedBindingId}::text`))}]::text[],
    ARRAY[${P.join(rsv.map((x) => P.sql`${x.charge}::bigint`))}]::bigint[]))`);
  }
  if (drw.length) {
    parts.push(P.sql`(SELECT capstan_settle_drawn_batch(ARRAY[${P.join(drw.map((x) => P.sql`${x.d.leaseId}::text`))}]::text[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.d.invocationId}::text`))}]::text[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.d.units}::float8`))}]::float8[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.s.units}::float8`))}]::float8[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.s.usedBindingId}::text`))}]::text[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.d.hold.toString()}::bigint`))}]::bigint[],
    ARRAY[${P.join(drw.map((x) => P.sql`${x.charge}::bigint`))}]::bigint[]))`);
  }
  if (!parts.length) return null;
  return P.sql`SELECT ${P.join(parts, " + ")} AS n`;
}

async function settleIn(tx: Prisma.TransactionClient, batch: TRecord[]): Promise<void> {
  const call = settleCall(batch);
  if (call) await tx.$queryRaw(call);
}

/**
 * The hot path (no audit to chain). In `batched` mode (the default) records
 * are group-committed: a lone call is written at once; calls that finish
 * while a write is in flight go together in the next one (up to FLUSH_MAX),
 * ONE statement per batch that settles the batch's reservations and inserts
 * the invocation rows and both outbox events per call. Every caller waits for
 * the commit of its batch before answering (flush, then answer everyone
 * waiting on it). `sync` writes one such statement per call. A failed batch is
 * retried record by record, so one bad record fails only its own call.
 */
const FLUSH_MAX = 100;
const records = new GroupCommit<TRecord, number>(async (batch) => {
  // One batch in flight per process: on the hot pg pool, without the ORM's per-query work.
  const ms = await writeRecords(batch);
  return batch.map(() => ms);
}, FLUSH_MAX);

/** Resolves once every record handed over so far is written (shutdown drain, tests, bench). */
export async function flushRecords(): Promise<void> {
  await records.idle();
  while (draining) await new Promise((r) => setImmediate(r));
}
