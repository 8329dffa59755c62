import { stateMachine } from "@/server/platform/state-machine";
import type { TAuditAction } from "@/server/platform/audit";

/**
 * The transition tables of deployments, pipeline runs and surfaces (spec 3
 * lists the states; these are our edges, also written down in
 * docs/decisions.md). Nothing writes a `status` except transitions.ts,
 * which applies these tables inside the transaction that writes the audit
 * record and the outbox event.
 */
export const DEPLOYMENT_STATES = ["planned", "applying", "active", "superseded", "blocked", "failed"] as const;
export type TDeploymentStatus = (typeof DEPLOYMENT_STATES)[number];
export type TDeploymentEvent =
  "request" | "block" | "apply" | "ready" | "fail" | "crash" | "supersede" | "stop" | "expire";

export const DEPLOYMENT = stateMachine<TDeploymentStatus, TDeploymentEvent>("deployment", DEPLOYMENT_STATES, [
  { from: null, event: "request", to: "planned" },
  { from: null, event: "block", to: "blocked" },
  { from: "planned", event: "apply", to: "applying" },
  { from: "planned", event: "fail", to: "failed" },
  { from: "planned", event: "stop", to: "superseded" },
  { from: "applying", event: "ready", to: "active" },
  { from: "applying", event: "fail", to: "failed" },
  { from: "applying", event: "stop", to: "superseded" },
  { from: "active", event: "supersede", to: "superseded" },
  { from: "active", event: "stop", to: "superseded" },
  { from: "active", event: "expire", to: "superseded" },
  { from: "active", event: "crash", to: "failed" },
]);

/** The audit action each deployment event writes (failures are events, not audit actions in spec 6.4). */
export const DEPLOYMENT_AUDIT: Partial<Record<TDeploymentEvent, TAuditAction>> = {
  request: "deployment.requested",
  block: "deployment.requested",
  ready: "deployment.ready",
  supersede: "deployment.stopped",
  stop: "deployment.stopped",
  expire: "deployment.stopped",
};

export const PIPELINE_STATES = [
  "pending_snapshot",
  "authorization_requested",
  "blocked",
  "admitted",
  "requested",
  "reported",
  "completed",
  "failed",
] as const;
export type TPipelineStatus = (typeof PIPELINE_STATES)[number];
export type TPipelineEvent =
  | "create"
  | "snapshot_ready"
  | "snapshot_missing"
  | "admit"
  | "block"
  | "request"
  | "report"
  | "complete"
  | "fail"
  | "cancel";

export const PIPELINE = stateMachine<TPipelineStatus, TPipelineEvent>("pipeline run", PIPELINE_STATES, [
  { from: null, event: "create", to: "pending_snapshot" },
  { from: "pending_snapshot", event: "snapshot_ready", to: "authorization_requested" },
  { from: "pending_snapshot", event: "snapshot_missing", to: "failed" },
  { from: "authorization_requested", event: "admit", to: "admitted" },
  { from: "authorization_requested", event: "block", to: "blocked" },
  { from: "admitted", event: "request", to: "requested" },
  { from: "admitted", event: "cancel", to: "failed" },
  { from: "requested", event: "report", to: "reported" },
  { from: "requested", event: "cancel", to: "failed" },
  { from: "reported", event: "complete", to: "completed" },
  { from: "reported", event: "fail", to: "failed" },
  { from: "reported", event: "cancel", to: "failed" },
]);

export const SURFACE_STATES = [
  "awaiting_expiration_registration",
  "validating",
  "active",
  "expiration_registration_failed",
  "configuration_failed",
  "expired",
] as const;
export type TSurfaceStatus = (typeof SURFACE_STATES)[number];
export type TSurfaceEvent = "create" | "register" | "registration_fail" | "reachable" | "unreachable" | "expire";

export const SURFACE = stateMachine<TSurfaceStatus, TSurfaceEvent>("surface", SURFACE_STATES, [
  { from: null, event: "create", to: "awaiting_expiration_registration" },
  { from: "awaiting_expiration_registration", event: "register", to: "validating" },
  { from: "awaiting_expiration_registration", event: "registration_fail", to: "expiration_registration_failed" },
  { from: "awaiting_expiration_registration", event: "expire", to: "expired" },
  { from: "validating", event: "reachable", to: "active" },
  { from: "validating", event: "unreachable", to: "configuration_failed" },
  { from: "validating", event: "expire", to: "expired" },
  { from: "active", event: "expire", to: "expired" },
]);
