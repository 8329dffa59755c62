import { stateMachine } from "@/server/platform/state-machine";

/**
 * Transition tables of evaluations, releases and fixes (docs/decisions.md,
 * "Evaluations, versions, releases and fixes"). Only the move functions of
 * this area write a `status`, compare-and-set, with their outbox event in
 * the same transaction.
 */
export const EVALUATION_STATES = ["queued", "deploying", "checking", "passed", "failed"] as const;
export type TEvaluationStatus = (typeof EVALUATION_STATES)[number];
export type TEvaluationEvent = "create" | "deploy" | "check" | "pass" | "fail";

export const EVALUATION = stateMachine<TEvaluationStatus, TEvaluationEvent>("evaluation", EVALUATION_STATES, [
  { from: null, event: "create", to: "queued" },
  { from: "queued", event: "deploy", to: "deploying" },
  { from: "queued", event: "fail", to: "failed" },
  { from: "deploying", event: "check", to: "checking" },
  { from: "deploying", event: "fail", to: "failed" },
  { from: "checking", event: "pass", to: "passed" },
  { from: "checking", event: "fail", to: "failed" },
]);

export const RELEASE_STATES = ["draft", "ready", "live", "retired", "blocked", "pending_approval"] as const;
export type TReleaseStatus = (typeof RELEASE_STATES)[number];
export type TReleaseEvent =
  "create" | "hold" | "block" | "approve" | "reject" | "freeze" | "go_live" | "retire" | "promote" | "reinstate";

export const RELEASE = stateMachine<TReleaseStatus, TReleaseEvent>("release", RELEASE_STATES, [
  { from: null, event: "create", to: "draft" },
  { from: null, event: "hold", to: "pending_approval" },
  { from: null, event: "block", to: "blocked" },
  { from: "pending_approval", event: "approve", to: "draft" },
  { from: "pending_approval", event: "reject", to: "blocked" },
  { from: "pending_approval", event: "block", to: "blocked" },
  { from: "draft", event: "freeze", to: "ready" },
  { from: "draft", event: "block", to: "blocked" },
  { from: "ready", event: "go_live", to: "live" },
  { from: "ready", event: "block", to: "blocked" },
  { from: "live", event: "retire", to: "retired" },
  // Promotion (owner/admin): a release live on staging gets a production deployment and waits for it (channel -> production).
  { from: "live", event: "promote", to: "ready" },
  // Rollback (owner/admin): an earlier production release is deployed again and waits for it.
  { from: "retired", event: "reinstate", to: "ready" },
]);

/** `failed`: an AI-generated fix whose model gave no usable diff (its findings say why); nothing to approve. */
export const FIX_STATES = ["proposed", "approved", "rejected", "failed"] as const;
export type TFixStatus = (typeof FIX_STATES)[number];
export type TFixEvent = "propose" | "fail" | "approve" | "reject";

export const FIX = stateMachine<TFixStatus, TFixEvent>("fix", FIX_STATES, [
  { from: null, event: "propose", to: "proposed" },
  { from: null, event: "fail", to: "failed" },
  { from: "proposed", event: "approve", to: "approved" },
  { from: "proposed", event: "reject", to: "rejected" },
]);
