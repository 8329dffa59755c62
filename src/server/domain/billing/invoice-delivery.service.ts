import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { logger } from "@/server/platform/logger";
import { sendMail } from "@/server/platform/mailer";
import { formatMinor } from "./money";
import { renderInvoicePdf } from "./invoice-pdf";
import { getInvoiceDocument } from "./invoices.service";

/**
 * An invoice leaves the building (issue #36 item 2): the PDF, rendered on
 * demand from the immutable invoice (so it is never stale and never stored),
 * and the invoice email to the billing profile's contact through the
 * platform's mail sender, with the PDF attached. Sent after the close commits
 * (mail is not transactional): the outcome is recorded on the invoice
 * (`emailed_at` or `email_error`), and an unsent invoice is retried by the
 * next close tick.
 */

export function issuerName(): string {
  return env().CAPSTAN_INVOICE_ISSUER_NAME;
}

export async function invoicePdf(
  workspaceId: string,
  invoiceId: string,
): Promise<{ bytes: Uint8Array; filename: string }> {
  const d = await getInvoiceDocument(workspaceId, invoiceId);
  return {
    bytes: await renderInvoicePdf(d, issuerName()),
    filename: `invoice-${d.invoice.number ?? d.invoice.id}.pdf`,
  };
}

/** Emails one invoice to its billing contact once; returns null when sent, else why not (recorded on the invoice). */
export async function emailInvoice(workspaceId: string, invoiceId: string): Promise<string | null> {
  const scoped = scopedDb(workspaceId);
  const d = await getInvoiceDocument(workspaceId, invoiceId);
  const inv = d.invoice;
  let error: string | null;
  if (!d.bill_to.configured || !d.bill_to.email) {
    error = "the workspace has no billing profile email";
  } else {
    const due = formatMinor(inv.amount_remaining_minor, inv.currency);
    const text = [
      `Invoice ${inv.number} for ${d.workspace.name}, ${inv.month}`,
      `Amount due: ${due}${inv.due_at ? ` by ${inv.due_at.slice(0, 10)}` : ""}`,
      inv.status === "paid"
        ? "Nothing to pay: this invoice is paid."
        : `Pay it from the console: ${env().CAPSTAN_PUBLIC_URL}/console/w/${workspaceId}/billing/invoices/${inv.id}`,
      "The invoice is attached as a PDF.",
    ].join("\n");
    const html = text
      .split("\n")
      .map((l) => `<p>${l.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</p>`)
      .join("");
    const pdf = await renderInvoicePdf(d, issuerName());
    error = await sendMail({
      to: d.bill_to.email,
      subject: `Invoice ${inv.number} from ${issuerName()}: ${due} due`,
      text,
      html,
      attachments: [
        { filename: `invoice-${inv.number}.pdf`, content: Buffer.from(pdf), contentType: "application/pdf" },
      ],
    });
  }
  await scoped.invoice.updateMany({
    where: { id: invoiceId },
    data: error ? { emailError: error } : { emailedAt: new Date(), emailError: null },
  });
  if (error)
    logger.warn("billing.invoice_email_failed", { workspace_id: workspaceId, invoice_id: invoiceId, reason: error });
  return error;
}

/** After a close: emails the month's invoices that were never sent. */
export async function emailUnsent(workspaceId: string, month: string): Promise<void> {
  const unsent = await scopedDb(workspaceId).invoice.findMany({
    where: { month, emailedAt: null, status: { not: "draft" } },
    select: { id: true },
  });
  for (const { id } of unsent) await emailInvoice(workspaceId, id);
}
