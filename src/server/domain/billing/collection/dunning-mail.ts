import { scopedDb } from "@/server/platform/db/scoped";
import { logger } from "@/server/platform/logger";
import { sendMail } from "@/server/platform/mailer";
import { issuerName } from "../invoice-delivery.service";
import type { TDunningMail } from "./dunning.service";

/**
 * A dunning step's email to the billing profile's contact, sent after the
 * step committed (mail is not transactional); the outcome is kept on the
 * dunning row (`last_email_error`) and logged, never retried into a second copy.
 */
export async function sendDunningMail(m: TDunningMail): Promise<string | null> {
  const scoped = scopedDb(m.workspaceId);
  const profile = await scoped.billingProfile.findFirst({ select: { email: true } });
  let error: string | null;
  if (!profile?.email) error = "the workspace has no billing profile email";
  else {
    const text = [...m.lines, "", `— ${issuerName()} billing`].join("\n");
    const html = m.lines.map((l) => `<p>${l.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</p>`).join("");
    error = await sendMail({ to: profile.email, subject: m.subject, text, html });
  }
  await scoped.invoiceDunning.updateMany({ where: { invoiceId: m.invoiceId }, data: { lastEmailError: error } });
  if (error)
    logger.warn("billing.dunning_email_failed", {
      workspace_id: m.workspaceId,
      invoice_id: m.invoiceId,
      reason: error,
    });
  return error;
}
