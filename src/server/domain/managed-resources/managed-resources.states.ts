import { stateMachine } from "@/server/platform/state-machine";

/**
 * The managed resource lifecycle (docs/decisions.md "Managed resources").
 * The attachment is not a state: it is a separate field, and the database
 * refuses an attached resource in a deleting state (CHECK constraint).
 */
export const MRES_STATES = [
  "provisioning",
  "available",
  "failed",
  "deletion_scheduled",
  "deleting",
  "deleted",
] as const;
export type TMresState = (typeof MRES_STATES)[number];
export type TMresEvent =
  "create" | "provisioned" | "provision_failed" | "schedule_delete" | "restore" | "destroy" | "destroyed";

export const MRES = stateMachine<TMresState, TMresEvent>("managed resource", MRES_STATES, [
  { from: null, event: "create", to: "provisioning" },
  { from: "provisioning", event: "provisioned", to: "available" },
  { from: "provisioning", event: "provision_failed", to: "failed" },
  // A resource still being created may be deleted: the destroy steps are idempotent drops.
  { from: "provisioning", event: "schedule_delete", to: "deletion_scheduled" },
  { from: "available", event: "schedule_delete", to: "deletion_scheduled" },
  { from: "failed", event: "schedule_delete", to: "deletion_scheduled" },
  // Restored resources are provisioned again (idempotent): it confirms the database still exists, and
  // completes one whose deletion was asked while it was being created or after it failed.
  { from: "deletion_scheduled", event: "restore", to: "provisioning" },
  { from: "deletion_scheduled", event: "destroy", to: "deleting" },
  { from: "deleting", event: "destroyed", to: "deleted" },
]);
