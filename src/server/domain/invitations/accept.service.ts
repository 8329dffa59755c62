import type { Invitation, Prisma } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { emitEvent } from "@/server/platform/outbox";
import { iso } from "@/server/platform/time";
import type { TRole } from "@/server/domain/identity/workspace-access.service";
import { hashPassword } from "@/server/domain/identity/users.service";
import type { TInvitationAccepted } from "./invitations.contract";
import { effectiveStatus, invitationStates, type TInvitationStatus } from "./invitations.states";
import { tokenHash, WITH_TOKEN_HASH } from "./invitations.service";

/**
 * Accepting an invitation (the console's /invite/<token> page, and
 * POST /v1/invitations/accept). The token is looked up by its hash across
 * workspaces, because the workspace is not known before it is found (as an
 * API token's jti is): that one read uses db(); every write goes through the
 * invitation's workspace's scopedDb. The token is consumed by a conditional
 * update (pending and not expired), so two accepts of one link cannot both win.
 */
export type TInvitationPreview = {
  state: TInvitationStatus | "unknown";
  email: string | null;
  role: TRole | null;
  workspace_id: string | null;
  workspace_name: string | null;
  inviter_name: string | null;
  expires_at: string | null;
  /** Whether a Capstan account exists for the invited address (sign in) or not (sign up). */
  account_exists: boolean;
};

async function byToken(token: string): Promise<Invitation | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  // platform-scoped: the workspace is unknown until the token is found (a read by a globally unique hash).
  return db().invitation.findUnique({ where: { tokenHash: tokenHash(token) }, omit: WITH_TOKEN_HASH });
}

/** What the accept page shows; nothing secret (the page is reached by whoever holds the link). */
export async function previewInvitation(token: string): Promise<TInvitationPreview> {
  const inv = await byToken(token);
  if (!inv) {
    return {
      state: "unknown",
      email: null,
      role: null,
      workspace_id: null,
      workspace_name: null,
      inviter_name: null,
      expires_at: null,
      account_exists: false,
    };
  }
  const [ws, inviter, account] = await Promise.all([
    scopedDb(inv.workspaceId).workspace.findUnique({ where: { id: inv.workspaceId }, select: { name: true } }),
    // platform-scoped: users belong to no workspace (PLATFORM_GLOBAL).
    db().user.findUnique({ where: { id: inv.invitedById }, select: { name: true } }),
    db().user.findUnique({ where: { email: inv.email }, select: { id: true } }),
  ]);
  return {
    state: effectiveStatus(inv),
    email: inv.email,
    role: inv.role as TRole,
    workspace_id: inv.workspaceId,
    workspace_name: ws?.name ?? null,
    inviter_name: inviter?.name ?? null,
    expires_at: iso(inv.expiresAt),
    account_exists: Boolean(account),
  };
}

/** The precise refusal for a link that cannot be used. */
function unusable(inv: Invitation | null): AppError {
  if (!inv)
    return new AppError("not_found", "This invitation link is not valid; ask for a new invitation", {
      reason: "invitation_not_found",
    });
  switch (effectiveStatus(inv)) {
    case "accepted":
      return new AppError("conflict", "This invitation has already been used", { reason: "invitation_used" });
    case "revoked":
      return new AppError("conflict", "This invitation was revoked by a workspace admin", {
        reason: "invitation_revoked",
      });
    case "expired":
      return new AppError("conflict", "This invitation has expired; ask a workspace admin to resend it", {
        reason: "invitation_expired",
      });
    default:
      return new AppError("conflict", "The invitation changed meanwhile; open the link again", {
        reason: "write_conflict",
      });
  }
}

/** Consumes the invitation and adds the membership, in the caller's transaction (scoped to the invitation's workspace). */
async function consume(
  tx: Prisma.TransactionClient,
  inv: Invitation,
  user: { id: string },
  correlationId: string,
): Promise<TInvitationAccepted> {
  const now = new Date();
  const used = await tx.invitation.updateMany({
    where: { id: inv.id, tokenHash: inv.tokenHash, status: "pending", expiresAt: { gt: now } },
    data: {
      status: invitationStates.next("pending", "accept"),
      acceptedAt: now,
      acceptedById: user.id,
      updatedAt: now,
    },
  });
  if (used.count !== 1) throw unusable(await tx.invitation.findUnique({ where: { id: inv.id } }));
  const ws = inv.workspaceId;
  // Same lock as every role change of this workspace (workspaces.service.ts).
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${"members:" + ws}, 0))`;
  const existing = await tx.membership.findFirst({ where: { userId: user.id } });
  const name = (await tx.workspace.findUniqueOrThrow({ where: { id: ws }, select: { name: true } })).name;
  if (existing) return { workspace_id: ws, workspace_name: name, role: existing.role as TRole, already_member: true };
  await tx.membership.create({ data: { id: newId("mem"), workspaceId: ws, userId: user.id, role: inv.role } });
  await writeAudit(tx, {
    workspaceId: ws,
    actor: { kind: "user", id: user.id },
    action: "member.upserted",
    target: { kind: "user", id: user.id },
    correlationId,
    details: { role: inv.role, via: "invitation", invitation_id: inv.id, invited_by: inv.invitedById },
  });
  await emitEvent(tx, {
    workspaceId: ws,
    type: "member.upserted",
    correlationId,
    subject: user.id,
    data: { workspace_id: ws, user_id: user.id, role: inv.role },
  });
  return { workspace_id: ws, workspace_name: name, role: inv.role as TRole, already_member: false };
}

/** A signed-in user accepts: their account's email must be the invited address (403 otherwise). */
export async function acceptInvitation(
  userId: string,
  token: string,
  correlationId: string,
): Promise<TInvitationAccepted> {
  const inv = await byToken(token);
  if (!inv || effectiveStatus(inv) !== "pending") throw unusable(inv);
  // platform-scoped: users belong to no workspace (PLATFORM_GLOBAL).
  const user = await db().user.findUnique({ where: { id: userId }, select: { id: true, email: true } });
  if (!user || user.email !== inv.email) {
    throw new AppError(
      "forbidden",
      `This invitation is for ${inv.email}; you are signed in as ${user?.email ?? "another user"}. Sign in with the invited address to accept it`,
      {
        reason: "invitation_email_mismatch",
      },
    );
  }
  return scopedDb(inv.workspaceId).$transaction((tx) => consume(tx, inv, user, correlationId));
}

/**
 * A person without an account accepts: the account is made for the invited
 * address (the link, mailed there, proves the address) with their name and
 * password, in the transaction that consumes the token. 409 when an account
 * with that address exists already (sign in and accept instead).
 */
export async function signUpAndAccept(
  input: { token: string; name: string; password: string },
  correlationId: string,
): Promise<TInvitationAccepted & { email: string }> {
  const inv = await byToken(input.token);
  if (!inv || effectiveStatus(inv) !== "pending") throw unusable(inv);
  const taken = () =>
    new AppError("conflict", `An account for ${inv.email} already exists; sign in to accept the invitation`, {
      reason: "email_taken",
    });
  // platform-scoped: users belong to no workspace (PLATFORM_GLOBAL).
  if (await db().user.findUnique({ where: { email: inv.email }, select: { id: true } })) throw taken();
  const passwordHash = await hashPassword(input.password);
  try {
    const accepted = await scopedDb(inv.workspaceId).$transaction(async (tx) => {
      // Users are platform-wide, so the scoped client refuses the model; raw SQL (not scoped) writes
      // the one row in the same transaction that consumes the token and adds the membership.
      const id = newId("usr");
      await tx.$executeRaw`INSERT INTO users (id, email, name, password_hash) VALUES (${id}, ${inv.email}, ${input.name.trim()}, ${passwordHash})`;
      return consume(tx, inv, { id }, correlationId);
    });
    return { ...accepted, email: inv.email };
  } catch (err) {
    const e = err as { code?: string; meta?: { code?: string } };
    if (e.code === "P2002" || (e.code === "P2010" && JSON.stringify(e.meta ?? {}).includes("23505"))) throw taken();
    throw err;
  }
}
