import { stateMachine } from "@/server/platform/state-machine";

/**
 * Backups and restores of managed postgres resources (docs/decisions.md
 * "Backups and restore"). One table each; every status write
 * goes through `next()`.
 */
export const BACKUP_STATES = ["pending", "running", "completed", "failed", "expired"] as const;
export type TBackupState = (typeof BACKUP_STATES)[number];
export type TBackupEvent = "request" | "start" | "complete" | "fail" | "expire";

export const BACKUP = stateMachine<TBackupState, TBackupEvent>("backup", BACKUP_STATES, [
  { from: null, event: "request", to: "pending" },
  { from: "pending", event: "start", to: "running" },
  // A worker that died mid-dump: the next claim starts it again.
  { from: "running", event: "start", to: "running" },
  { from: "running", event: "complete", to: "completed" },
  { from: "pending", event: "fail", to: "failed" },
  { from: "running", event: "fail", to: "failed" },
  { from: "completed", event: "expire", to: "expired" },
  { from: "failed", event: "expire", to: "expired" },
]);

export const RESTORE_STATES = ["pending", "running", "completed", "failed"] as const;
export type TRestoreState = (typeof RESTORE_STATES)[number];
export type TRestoreEvent = "request" | "start" | "complete" | "fail";

export const RESTORE = stateMachine<TRestoreState, TRestoreEvent>("restore", RESTORE_STATES, [
  { from: null, event: "request", to: "pending" },
  { from: "pending", event: "start", to: "running" },
  { from: "running", event: "start", to: "running" },
  { from: "running", event: "complete", to: "completed" },
  { from: "pending", event: "fail", to: "failed" },
  { from: "running", event: "fail", to: "failed" },
]);
