import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from "pdf-lib";
import { formatMicros, formatMinor } from "./money";
import { describeMetered, type TInvoiceDocument } from "./invoices.contract";

/**
 * The invoice as a PDF, rendered on the server with pdf-lib (pure JavaScript,
 * no native parts, no font files to ship: the standard Helvetica faces).
 * Standard fonts speak WinAnsi only, so text outside it is transliterated
 * (accents kept where WinAnsi has them, anything else as "?"). Deterministic
 * for one invoice state: creation and modification dates are the invoice's.
 */

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;

function winAnsi(text: string): string {
  // WinAnsi covers Latin-1 plus a few typographic marks; replace the rest.
  return text
    .normalize("NFC")
    .replace(/[^\u0020-\u007e\u00a0-\u00ff\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026\u20ac]/g, "?");
}

type TPen = { page: PDFPage; y: number; font: PDFFont; bold: PDFFont; doc: PDFDocument };

function line(pen: TPen, text: string, opts: { x?: number; size?: number; bold?: boolean; right?: number } = {}): void {
  const size = opts.size ?? 10;
  const font = opts.bold ? pen.bold : pen.font;
  const t = winAnsi(text);
  const x = opts.right !== undefined ? opts.right - font.widthOfTextAtSize(t, size) : (opts.x ?? MARGIN);
  pen.page.drawText(t, { x, y: pen.y, size, font, color: rgb(0.1, 0.1, 0.1) });
}

function newline(pen: TPen, dy = 14): void {
  pen.y -= dy;
  if (pen.y < MARGIN + 40) {
    pen.page = pen.doc.addPage(A4);
    pen.y = A4[1] - MARGIN;
  }
}

export async function renderInvoicePdf(d: TInvoiceDocument, issuerName: string): Promise<Uint8Array> {
  const inv = d.invoice;
  const cur = inv.currency;
  const money = (minor: number) => formatMinor(minor, cur);
  const doc = await PDFDocument.create();
  const at = new Date(inv.finalized_at ?? inv.created_at);
  doc.setTitle(`Invoice ${inv.number ?? inv.id}`);
  doc.setAuthor(issuerName);
  doc.setCreator("Capstan");
  doc.setProducer("Capstan (pdf-lib)");
  doc.setCreationDate(at);
  doc.setModificationDate(at);
  const pen: TPen = {
    doc,
    page: doc.addPage(A4),
    y: A4[1] - MARGIN,
    font: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
  };
  const right = A4[0] - MARGIN;

  line(pen, "Invoice", { size: 20, bold: true });
  line(pen, inv.number ?? "(draft)", { size: 14, bold: true, right });
  newline(pen, 22);
  line(pen, `Status: ${inv.status}`);
  line(pen, `Period: ${inv.month} (UTC)`, { right });
  newline(pen);
  line(pen, `Issued: ${inv.finalized_at ?? inv.issued_at}`);
  line(pen, `Due: ${inv.due_at ?? "-"}`, { right });
  newline(pen, 24);

  line(pen, "From", { bold: true });
  line(pen, "Bill to", { bold: true, x: 300 });
  newline(pen);
  line(pen, issuerName);
  const p = d.bill_to;
  const billTo =
    p.configured && p.address
      ? [
          p.legal_name ?? "",
          p.address.line1,
          p.address.line2 ?? "",
          `${p.address.postal_code} ${p.address.city}`,
          p.address.region ?? "",
          p.address.country,
          p.tax_id ? `Tax id: ${p.tax_id}` : "",
          p.email ?? "",
        ].filter(Boolean)
      : [d.workspace.name, "(no billing profile set)"];
  for (const [i, text] of billTo.entries()) {
    line(pen, text, { x: 300 });
    if (i < billTo.length - 1) newline(pen);
  }
  newline(pen, 14);
  line(pen, `Workspace ${d.workspace.name} (${d.workspace.id})`, { size: 8 });
  newline(pen, 26);

  line(pen, "Description", { bold: true });
  line(pen, "Amount", { bold: true, right });
  newline(pen, 16);
  for (const l of inv.lines) {
    if (l.kind === "subscription") {
      const note = l.proration
        ? " (upgrade, prorated)"
        : l.trial
          ? " (free trial)"
          : l.cancellation
            ? " (cancelled at once: unused time credited)"
            : "";
      line(
        pen,
        `Subscription ${l.tier}${note}${l.period_start ? `, ${l.period_start.slice(0, 10)} to ${l.period_end?.slice(0, 10)}` : ""}`,
      );
      line(pen, money(l.amount_minor), { right });
    } else if (l.kind === "metered") {
      const m = describeMetered(l);
      line(pen, `${m.what}: ${m.quantity} at ${m.unitPrice} ${cur} (card ${l.rate_card_version_id})`, { size: 9 });
      line(pen, formatMicros(l.amount_micros, cur, true), { right });
    } else {
      line(
        pen,
        `${l.capability} ${l.provider}/${l.model}: ${l.calls} calls, ${l.tokens} ${l.tokens === 1 ? "unit" : "units"} (card ${l.rate_card_version_id})`,
        { size: 9 },
      );
      line(pen, formatMicros(l.amount_micros, cur, true), { right });
    }
    newline(pen);
  }
  newline(pen, 8);
  const totals: Array<[string, string, boolean?]> = [
    ["Usage (exact)", formatMicros(inv.usage_micros, cur, true)],
    ["  of which paid from credit grants", formatMicros(inv.granted_micros, cur, true)],
    ["Subscription", money(inv.subscription_minor)],
    ["Total", money(inv.total_minor), true],
    ["Already paid by the wallet at close", money(inv.total_minor - inv.amount_due_minor)],
    ["Amount due", money(inv.amount_due_minor), true],
    ["Credited (credit notes)", money(inv.credited_minor)],
    ["Paid", money(inv.amount_paid_minor)],
    ["Amount remaining", money(inv.amount_remaining_minor), true],
  ];
  for (const [label, value, bold] of totals) {
    line(pen, label, { x: 300, bold });
    line(pen, value, { right, bold });
    newline(pen);
  }
  if (d.credit_notes.length) {
    newline(pen, 10);
    line(pen, "Credit notes", { bold: true });
    newline(pen, 16);
    for (const n of d.credit_notes) {
      const split = [
        n.reduced_minor ? `${money(n.reduced_minor)} off the amount due` : "",
        n.refunded_minor ? `${money(n.refunded_minor)} refunded to the ${n.refund_to}` : "",
      ]
        .filter(Boolean)
        .join(", ");
      line(pen, `${n.number} (${n.created_at.slice(0, 10)}): ${n.reason}`.slice(0, 90), { size: 9 });
      line(pen, `-${money(n.amount_minor)}`, { right });
      newline(pen, 12);
      line(pen, split, { size: 8, x: MARGIN + 10 });
      newline(pen);
    }
  }
  newline(pen, 10);
  line(pen, "Tax: not charged (no tax is modelled). Amounts in integer minor units of the currency.", { size: 8 });
  return doc.save({ useObjectStreams: false });
}
