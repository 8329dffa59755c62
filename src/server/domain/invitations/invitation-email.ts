import { env } from "@/server/platform/env";
import type { TMail } from "@/server/platform/mailer";

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The accept link: the console's /invite/<token> page on the public URL. */
export function invitationLink(token: string): string {
  return `${env().CAPSTAN_PUBLIC_URL.replace(/\/+$/, "")}/invite/${token}`;
}

/** The invitation email: plain text and a small HTML part with the same content. */
export function invitationEmail(i: {
  to: string;
  token: string;
  workspaceName: string;
  role: string;
  inviter: string;
  expiresAt: Date;
}): TMail {
  const link = invitationLink(i.token);
  const expires = `${i.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const subject = `${i.inviter} invited you to ${i.workspaceName} on Capstan`;
  const text = [
    `${i.inviter} invited you to join the workspace "${i.workspaceName}" on Capstan as ${i.role}.`,
    "",
    `Accept the invitation: ${link}`,
    "",
    `The link works once and expires on ${expires}. If you did not expect this invitation, ignore this email.`,
  ].join("\n");
  const html = `<p>${escapeHtml(i.inviter)} invited you to join the workspace <strong>${escapeHtml(i.workspaceName)}</strong> on Capstan as ${escapeHtml(i.role)}.</p>
<p><a href="${escapeHtml(link)}">Accept the invitation</a></p>
<p>The link works once and expires on ${escapeHtml(expires)}. If you did not expect this invitation, ignore this email.</p>`;
  return { to: i.to, subject, text, html };
}
