import type { OutboxEvent, Prisma } from "@/generated/prisma/client";
import type { TDb } from "./db/client";
import { env } from "./env";
import { newId } from "./ids";

/**
 * The transactional outbox. Call emitEvent with the transaction client of the
 * change the event describes, so the event exists if and only if the change
 * committed. Envelopes are CloudEvents 1.0 JSON; each type has its own
 * semantic version (spec 9.2), carried in `dataschema`.
 */
export const EVENT_TYPES = {
  "capability.contract_ready": "1.2.0",
  "capability.invocation_requested": "1.4.0",
  "capability.invocation_resulted": "1.1.0",
  "workspace.created": "1.0.0",
  "member.upserted": "1.0.0",
  "member.role_changed": "1.0.0",
  "plan.changed": "1.0.0",
  "budget.changed": "1.0.0",
  "product.created": "1.0.0",
  "source_freeze.completed": "1.0.0",
  "credential.created": "1.0.0",
  "credential.revoked": "1.0.0",
  "binding.changed": "1.0.0",
  "service_identity.changed": "1.0.0",
  "deployment.changed": "1.0.0",
  // A replacement requested (phase requested) and completed (phase completed): old and new deployment and host.
  "deployment.replaced": "1.0.0",
  "pipeline_run.changed": "1.0.0",
  "surface.changed": "1.0.0",
  "access.changed": "1.0.0",
  "session.changed": "1.0.0",
  "invocation.changed": "1.0.0",
  "domain.changed": "1.0.0",
  "evaluation.changed": "1.0.0",
  "release.changed": "1.0.0",
  "fix.changed": "1.0.0",
  "managed_resource.changed": "1.0.0",
  // Billing (issue #36 item 6; docs/decisions.md "Invoices as receivables"): every money field an integer with its currency.
  "invoice.issued": "1.0.0",
  "invoice.paid": "1.0.0",
  "invoice.payment_failed": "1.0.0",
  "invoice.voided": "1.0.0",
  "credit_note.issued": "1.0.0",
  "payment.succeeded": "1.0.0",
  "payment.refunded": "1.0.0",
  "wallet.low_balance": "1.0.0",
  "subscription.changed": "1.0.0",
  // Dunning steps of an invoice and the workspace's standing (docs/decisions.md "Collection and dunning").
  "dunning.changed": "1.0.0",
  "managed_resource.backup_changed": "1.0.0",
  "managed_resource.restore_changed": "1.0.0",
  "managed_resource.credential_changed": "1.0.0",
} as const;
export type TEventType = keyof typeof EVENT_TYPES;
export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as TEventType[];

type TTx = Prisma.TransactionClient | TDb;

export type TEmit = {
  workspaceId: string;
  type: TEventType;
  correlationId: string;
  data: Record<string, unknown>;
  /** The resource the event is about (CloudEvents `subject`). */
  subject?: string;
};

export async function emitEvent(tx: TTx, e: TEmit): Promise<string> {
  const id = newId("evt");
  await tx.outboxEvent.create({
    data: {
      id,
      workspaceId: e.workspaceId,
      type: e.type,
      version: EVENT_TYPES[e.type],
      source: `/v1/workspaces/${e.workspaceId}`,
      subject: e.subject ?? null,
      correlationId: e.correlationId,
      data: e.data as Prisma.InputJsonValue,
    },
  });
  return id;
}

/** Event types with a published JSON Schema (GET /v1/event-schemas/{type}). */
export const SCHEMA_EVENT_TYPES = new Set<string>([
  "capability.contract_ready",
  "capability.invocation_requested",
  "capability.invocation_resulted",
]);

export function eventSchemaUrl(type: string, version: string): string {
  return `${env().CAPSTAN_PUBLIC_URL}/v1/event-schemas/${type}?version=${version}`;
}

export type TCloudEvent = {
  specversion: "1.0";
  id: string;
  type: string;
  source: string;
  subject?: string;
  time: string;
  datacontenttype: "application/json";
  dataschema?: string;
  workspaceid: string;
  correlationid: string;
  data: unknown;
};

/** CloudEvents 1.0 structured JSON. Extension attribute names are lower-case alphanumerics. */
export function toCloudEvent(row: Omit<OutboxEvent, "seq">): TCloudEvent {
  return {
    specversion: "1.0",
    id: row.id,
    type: row.type,
    source: row.source,
    ...(row.subject ? { subject: row.subject } : {}),
    time: row.createdAt.toISOString(),
    datacontenttype: "application/json",
    // CloudEvents makes dataschema optional: only link schemas that exist.
    ...(SCHEMA_EVENT_TYPES.has(row.type) ? { dataschema: eventSchemaUrl(row.type, row.version) } : {}),
    workspaceid: row.workspaceId,
    correlationid: row.correlationId,
    data: row.data,
  };
}
