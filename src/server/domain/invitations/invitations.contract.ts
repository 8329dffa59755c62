import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";
import { ROLES } from "@/server/domain/identity/workspace-access.service";
import { INVITATION_STATUSES } from "./invitations.states";

/** Wire shapes of invitations (not in the spec; docs/decisions.md "Invitations"). */
export const ZInvitation = z
  .object({
    id: zId("invt"),
    workspace_id: zWorkspaceId,
    email: z.string(),
    role: z.enum(ROLES),
    status: z.enum(INVITATION_STATUSES).describe("A pending invitation past expires_at reads as expired"),
    invited_by: z.object({ id: zId("usr"), name: z.string().nullable(), email: z.string().nullable() }),
    expires_at: z.string(),
    last_sent_at: z.string().nullable(),
    send_count: z.number().int(),
    email_status: z
      .enum(["pending", "sent", "failed"])
      .describe("Whether the mail server accepted the last invitation email"),
    email_error: z.string().nullable().describe("Why the last email was not accepted, in words"),
    accepted_at: z.string().nullable(),
    accepted_by_id: zId("usr").nullable(),
    revoked_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Invitation" });
export type TInvitation = z.infer<typeof ZInvitation>;
export const ZInvitationList = zPage(ZInvitation).meta({ id: "Invitations" });

export const ZInvitationCreate = z.strictObject({
  email: z.string().trim().toLowerCase().email().max(254),
  role: z.enum(ROLES),
});
export const ZInvitationListQuery = zListQuery.extend({
  status: z
    .enum(INVITATION_STATUSES)
    .default("pending")
    .describe("Which invitations to list (default: pending ones that have not expired)"),
});

/** The link's token: 43 base64url characters (32 random bytes). */
export const zInvitationToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be an invitation token");
export const ZInvitationAccept = z.strictObject({ token: zInvitationToken });
export const ZInvitationAccepted = z
  .object({
    workspace_id: zWorkspaceId,
    workspace_name: z.string(),
    role: z.enum(ROLES),
    already_member: z.boolean().describe("True when the user was already a member (their role is not changed)"),
  })
  .meta({ id: "InvitationAccepted" });
export type TInvitationAccepted = z.infer<typeof ZInvitationAccepted>;
export const ZInvitationSignUp = z.strictObject({
  token: zInvitationToken,
  name: z.string().trim().min(1).max(100),
  password: z.string().min(12, "at least 12 characters").max(256),
});
