import { createHash, randomBytes } from "node:crypto";
import type { Invitation } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { AppError, notFound } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { requireMailer, sendMail } from "@/server/platform/mailer";
import { keysetArgs, toPage, type TPage } from "@/server/platform/pagination";
import { iso, isoOrNull } from "@/server/platform/time";
import type { TRole } from "@/server/domain/identity/workspace-access.service";
import type { TInvitation } from "./invitations.contract";
import { invitationEmail } from "./invitation-email";
import { effectiveStatus, invitationStates, type TInvitationStatus } from "./invitations.states";

/**
 * Invitations to a workspace by email (docs/decisions.md "Invitations"): an
 * owner or admin invites an address with a role; the address receives a link
 * with a random single-use token (stored as its SHA-256) that expires after
 * CAPSTAN_INVITATION_TTL_HOURS. The row and its audit record commit first;
 * the email is sent after the commit and its outcome is recorded on the row
 * (email_status), so a 201 never stands for a mail the server did not take
 * without saying so. Accepting lives in accept.service.ts.
 */
type TCaller = { userId: string; role: TRole; correlationId: string };

export const newToken = (): string => randomBytes(32).toString("base64url");
/**
 * The token hash is omitted from every read by default (OMIT_SECRETS); the reads whose row drives a
 * compare-and-set on it (resend, deliver, accept) ask for it explicitly.
 */
export const WITH_TOKEN_HASH = { tokenHash: false } as const;

export const tokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");

const ttlMs = () => env().CAPSTAN_INVITATION_TTL_HOURS * 3_600_000;

async function inviters(ids: string[]): Promise<Map<string, { name: string; email: string }>> {
  // platform-scoped: users belong to no workspace (PLATFORM_GLOBAL); read by id.
  const users = ids.length
    ? await db().user.findMany({
        where: { id: { in: [...new Set(ids)] } },
        select: { id: true, name: true, email: true },
      })
    : [];
  return new Map(users.map((u) => [u.id, { name: u.name, email: u.email }]));
}

function toInvitation(
  r: Omit<Invitation, "tokenHash">,
  people: Map<string, { name: string; email: string }>,
): TInvitation {
  const by = people.get(r.invitedById);
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    email: r.email,
    role: r.role as TRole,
    status: effectiveStatus(r),
    invited_by: { id: r.invitedById, name: by?.name ?? null, email: by?.email ?? null },
    expires_at: iso(r.expiresAt),
    last_sent_at: isoOrNull(r.lastSentAt),
    send_count: r.sendCount,
    email_status: r.emailStatus as TInvitation["email_status"],
    email_error: r.emailError,
    accepted_at: isoOrNull(r.acceptedAt),
    accepted_by_id: r.acceptedById,
    revoked_at: isoOrNull(r.revokedAt),
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  };
}

async function view(r: Invitation): Promise<TInvitation> {
  return toInvitation(r, await inviters([r.invitedById]));
}

/** Sends the email for a freshly issued token and records the outcome on the row. */
async function deliver(workspaceId: string, row: Invitation, token: string): Promise<Invitation> {
  const [ws, people] = await Promise.all([
    scopedDb(workspaceId).workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { name: true } }),
    inviters([row.invitedById]),
  ]);
  const by = people.get(row.invitedById);
  const error = await sendMail(
    invitationEmail({
      to: row.email,
      token,
      workspaceName: ws.name,
      role: row.role,
      inviter: by ? `${by.name} (${by.email})` : "A workspace admin",
      expiresAt: row.expiresAt,
    }),
  );
  // Only the token this send carried: a resend racing in between keeps its own outcome.
  await scopedDb(workspaceId).invitation.updateMany({
    where: { id: row.id, tokenHash: row.tokenHash },
    data: { emailStatus: error ? "failed" : "sent", emailError: error, updatedAt: new Date() },
  });
  return scopedDb(workspaceId).invitation.findUniqueOrThrow({ where: { id: row.id }, omit: WITH_TOKEN_HASH });
}

function ownerGuard(caller: TCaller, role: TRole): void {
  if (role === "owner" && caller.role !== "owner") {
    throw new AppError("forbidden", "Only an owner can invite someone as owner", { reason: "role_required" });
  }
}

/** Invites `email` with `role`. 409 when the address is already a member or has a pending invitation. */
export async function createInvitation(
  caller: TCaller,
  workspaceId: string,
  input: { email: string; role: TRole },
): Promise<TInvitation> {
  requireMailer();
  ownerGuard(caller, input.role);
  const email = input.email.trim().toLowerCase();
  const token = newToken();
  const now = new Date();
  let row: Invitation;
  try {
    row = await scopedDb(workspaceId).$transaction(async (tx) => {
      const member = await tx.membership.findFirst({
        where: { user: { is: { email } } },
        select: { userId: true, role: true },
      });
      if (member) {
        throw new AppError(
          "conflict",
          `${email} is already a member of this workspace (${member.role}); change their role in the member list instead`,
          {
            reason: "already_member",
            errors: [{ path: "/email", message: "already a member", code: "already_member" }],
          },
        );
      }
      const pending = await tx.invitation.findFirst({ where: { email, status: "pending" } });
      if (pending && effectiveStatus(pending, now) === "pending") {
        throw new AppError(
          "conflict",
          `${email} already has a pending invitation (${pending.id}); resend or revoke it instead`,
          {
            reason: "invitation_pending",
            errors: [{ path: "/email", message: "already invited", code: "invitation_pending" }],
            extensions: { conflicting_id: pending.id },
          },
        );
      }
      if (pending) {
        await tx.invitation.update({
          where: { id: pending.id },
          data: { status: invitationStates.next("pending", "expire"), updatedAt: now },
        });
      }
      const created = await tx.invitation.create({
        data: {
          id: newId("invt"),
          workspaceId,
          email,
          role: input.role,
          status: invitationStates.next(null, "invite"),
          tokenHash: tokenHash(token),
          invitedById: caller.userId,
          expiresAt: new Date(now.getTime() + ttlMs()),
          lastSentAt: now,
          sendCount: 1,
        },
        omit: WITH_TOKEN_HASH,
      });
      await writeAudit(tx, {
        workspaceId,
        actor: { kind: "user", id: caller.userId },
        action: "member.invited",
        target: { kind: "invitation", id: created.id },
        correlationId: caller.correlationId,
        details: { email, role: input.role, expires_at: iso(created.expiresAt) },
      });
      return created;
    });
  } catch (err) {
    // Two concurrent invitations of one address: the partial unique index keeps one.
    if ((err as { code?: string }).code === "P2002") {
      throw new AppError("conflict", `${email} already has a pending invitation`, { reason: "invitation_pending" });
    }
    throw err;
  }
  return view(await deliver(workspaceId, row, token));
}

export async function listInvitations(
  workspaceId: string,
  q: { status: TInvitationStatus; limit: number; cursor?: string; order: "asc" | "desc" },
): Promise<TPage<TInvitation>> {
  const args = keysetArgs(q);
  const now = new Date();
  const byStatus =
    q.status === "pending"
      ? { status: "pending", expiresAt: { gt: now } }
      : q.status === "expired"
        ? { OR: [{ status: "expired" }, { status: "pending", expiresAt: { lte: now } }] }
        : { status: q.status };
  const rows = await scopedDb(workspaceId).invitation.findMany({ ...args, where: { AND: [args.where, byStatus] } });
  const people = await inviters(rows.map((r) => r.invitedById));
  return toPage(rows, q, (r) => toInvitation(r, people));
}

async function find(workspaceId: string, id: string): Promise<Invitation> {
  const row = await scopedDb(workspaceId).invitation.findUnique({ where: { id }, omit: WITH_TOKEN_HASH });
  if (!row) throw notFound(`Invitation ${id}`);
  return row;
}

export async function getInvitation(workspaceId: string, id: string): Promise<TInvitation> {
  return view(await find(workspaceId, id));
}

/**
 * A new token and a new expiry, emailed again; the previous link stops
 * working. At most one send per CAPSTAN_INVITATION_RESEND_SECONDS (429 with
 * Retry-After). Works for a pending invitation, also one past its expiry.
 */
export async function resendInvitation(caller: TCaller, workspaceId: string, id: string): Promise<TInvitation> {
  const token = newToken();
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    const cur = await tx.invitation.findUnique({ where: { id }, omit: WITH_TOKEN_HASH });
    if (!cur) throw notFound(`Invitation ${id}`);
    requireMailer();
    ownerGuard(caller, cur.role as TRole);
    invitationStates.next(cur.status as TInvitationStatus, "resend");
    const now = new Date();
    const cooldownMs = env().CAPSTAN_INVITATION_RESEND_SECONDS * 1000;
    const waitMs = cur.lastSentAt ? cur.lastSentAt.getTime() + cooldownMs - now.getTime() : 0;
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      throw new AppError("rate_limited", `This invitation was sent moments ago; it can be sent again in ${seconds} s`, {
        reason: "resend_too_soon",
        headers: { "Retry-After": String(seconds) },
      });
    }
    // Conditional on the row we read: a concurrent resend or accept makes this a 409.
    const changed = await tx.invitation.updateMany({
      where: { id, status: "pending", tokenHash: cur.tokenHash },
      data: {
        status: invitationStates.next("pending", "resend"),
        tokenHash: tokenHash(token),
        expiresAt: new Date(now.getTime() + ttlMs()),
        lastSentAt: now,
        sendCount: { increment: 1 },
        emailStatus: "pending",
        emailError: null,
        updatedAt: now,
      },
    });
    if (changed.count !== 1)
      throw new AppError("conflict", "The invitation changed meanwhile; reload it", { reason: "write_conflict" });
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "member.invitation_resent",
      target: { kind: "invitation", id },
      correlationId: caller.correlationId,
      details: { email: cur.email, send_count: cur.sendCount + 1 },
    });
    return tx.invitation.findUniqueOrThrow({ where: { id }, omit: WITH_TOKEN_HASH });
  });
  return view(await deliver(workspaceId, row, token));
}

/** Revokes a pending invitation: its link stops working at once. 409 once accepted, revoked or superseded. */
export async function revokeInvitation(caller: TCaller, workspaceId: string, id: string): Promise<TInvitation> {
  const row = await scopedDb(workspaceId).$transaction(async (tx) => {
    const cur = await tx.invitation.findUnique({ where: { id } });
    if (!cur) throw notFound(`Invitation ${id}`);
    ownerGuard(caller, cur.role as TRole);
    const now = new Date();
    const status = invitationStates.next(cur.status as TInvitationStatus, "revoke");
    const changed = await tx.invitation.updateMany({
      where: { id, status: "pending" },
      data: { status, revokedAt: now, updatedAt: now },
    });
    if (changed.count !== 1)
      throw new AppError("conflict", "The invitation was accepted or revoked meanwhile", {
        reason: "illegal_transition",
      });
    await writeAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: caller.userId },
      action: "member.invitation_revoked",
      target: { kind: "invitation", id },
      correlationId: caller.correlationId,
      details: { email: cur.email, role: cur.role },
    });
    return tx.invitation.findUniqueOrThrow({ where: { id } });
  });
  return view(row);
}
