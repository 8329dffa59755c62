/**
 * Seeds an issued invoice for the console e2e (an invoice is otherwise only
 * issued by the worker at month close, and no endpoint moves the clock):
 * `DATABASE_URL=… node --conditions=react-server --import tsx test/support/seed-invoice.ts <ws> <tier> <actor email>`
 * subscribes the workspace to the tier, sets its billing profile and issues
 * this month's invoice through the same services, books 50.00 USD of paid
 * balance (an adjustment), then prints `result <ivc id>`.
 */
import { issueInvoices } from "@/server/domain/billing/invoices.service";
import { putProfile } from "@/server/domain/billing/profile.service";
import { setSubscription } from "@/server/domain/billing/subscriptions.service";
import { adjust } from "@/server/domain/billing/wallet.service";
import { closeDb, db, getDb } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { utcMonth } from "@/server/platform/time";

const [ws, tier, email] = process.argv.slice(2) as [string, string, string];
await getDb();
const user = await db().user.findUniqueOrThrow({ where: { email }, select: { id: true } });
const caller = { userId: user.id, correlationId: newId("evt") };
await setSubscription(caller, ws, tier, "platform");
await putProfile(caller, ws, {
  legal_name: "E2E Printing GmbH",
  email: "ap@e2e.example",
  address: { line1: "Druckweg 1", city: "Köln", postal_code: "50667", country: "DE" },
  tax_id: "DE999999999",
});
const [invoice] = await issueInvoices(ws, utcMonth(), new Date());
// Paid balance to pay the invoice with from the console (a bank transfer the operator booked).
await adjust(caller, ws, { amount_minor: 5000, currency: "USD", reason: "e2e bank transfer" });
if (!invoice) throw new Error("no invoice was issued");
process.stdout.write(`result ${invoice.id}\n`);
await closeDb();
process.exit(0);
