import { stateMachine } from "@/server/platform/state-machine";

/**
 * Invitation lifecycle. `pending` is the only live state; a pending row whose
 * expires_at has passed is treated as `expired` everywhere and is moved there
 * when a new invitation for the same email is made. Resending keeps `pending`
 * (new token, new expiry). Every status write goes through `next()`.
 */
export const INVITATION_STATUSES = ["pending", "accepted", "revoked", "expired"] as const;
export type TInvitationStatus = (typeof INVITATION_STATUSES)[number];
export type TInvitationEvent = "invite" | "resend" | "accept" | "revoke" | "expire";

export const invitationStates = stateMachine<TInvitationStatus, TInvitationEvent>("invitation", INVITATION_STATUSES, [
  { from: null, event: "invite", to: "pending" },
  { from: "pending", event: "resend", to: "pending" },
  { from: "pending", event: "accept", to: "accepted" },
  { from: "pending", event: "revoke", to: "revoked" },
  { from: "pending", event: "expire", to: "expired" },
]);

/** The status a reader sees: a pending row past its expiry is expired. */
export function effectiveStatus(row: { status: string; expiresAt: Date }, now = new Date()): TInvitationStatus {
  if (row.status === "pending" && row.expiresAt.getTime() <= now.getTime()) return "expired";
  return row.status as TInvitationStatus;
}
