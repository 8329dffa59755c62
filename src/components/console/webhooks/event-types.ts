import type { TEventType } from "@/server/platform/outbox";

/**
 * Every event type a subscription can filter on. A Record over the server's
 * union, so a new event type is a compile error here until it gets a label.
 */
export const EVENT_LABEL: Record<TEventType, string> = {
  "workspace.created": "Workspace created",
  "member.upserted": "Member added",
  "member.role_changed": "Member role changed",
  "plan.changed": "Plan changed",
  "budget.changed": "Budget changed",
  "product.created": "Product created",
  "source_freeze.completed": "Source freeze completed",
  "credential.created": "Credential created",
  "credential.revoked": "Credential revoked",
  "binding.changed": "Binding changed",
  "service_identity.changed": "Service identity changed",
  "capability.contract_ready": "Capability contract ready",
  "capability.invocation_requested": "Capability invocation requested",
  "capability.invocation_resulted": "Capability invocation resulted",
  "deployment.changed": "Deployment status changed",
  "deployment.replaced": "Deployment replaced (drain, lost host)",
  "pipeline_run.changed": "Pipeline run status changed",
  "surface.changed": "Surface status changed",
  "access.changed": "Access qualified or revoked",
  "session.changed": "Session opened or closed",
  "invocation.changed": "Invocation admitted, denied, pending or executed",
  "evaluation.changed": "Evaluation queued, deploying, checking, passed or failed",
  "release.changed": "Release status changed",
  "fix.changed": "Fix proposed, approved or rejected",
  "domain.changed": "Custom domain added, verified, failed or deleted",
  "managed_resource.changed":
    "Managed resource created, provisioned, attached, detached, scheduled for deletion, restored or destroyed",
  "invoice.issued": "Invoice issued",
  "invoice.paid": "Invoice paid",
  "invoice.payment_failed": "Invoice payment failed",
  "invoice.voided": "Invoice voided",
  "credit_note.issued": "Credit note issued",
  "payment.succeeded": "Payment succeeded",
  "payment.refunded": "Payment refunded",
  "wallet.low_balance": "Wallet balance low",
  "subscription.changed": "Subscription changed",
  "dunning.changed": "Dunning step or billing standing changed",
  "managed_resource.backup_changed": "Managed database backup requested, started, completed, failed or expired",
  "managed_resource.restore_changed": "Managed database restore requested, started, completed or failed",
  "managed_resource.credential_changed":
    "Managed database login role created, replaced by a rotation, revoked or dropped",
};
export const EVENT_TYPES = Object.keys(EVENT_LABEL) as TEventType[];
export const ALL = "*";
