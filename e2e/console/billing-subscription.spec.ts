import { execFileSync } from "node:child_process";
import { type Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { ADMIN, signInAndCreateWorkspace, uniqueSuffix } from "../support/console";

/**
 * The billing console of issue #36 (docs/decisions.md "Credit notes,
 * subscriptions that end, metered pricing"): the owner cancels the
 * subscription at the period's end and resumes it, each state said in words;
 * the Payment methods card says what it can do on a platform without a
 * Stripe gateway (the e2e server has none: no "Add a card"); a platform admin
 * issues a credit note on the open invoice (the confirm disabled until an
 * amount and a reason are given, a zero refused), which lowers what is left to
 * pay, then one on the paid invoice, refunded to the wallet; finally the owner
 * cancels at once and the workspace is on the free plan.
 *
 * The subscription and its invoice are seeded through the billing services on
 * the server's PostgreSQL database (test/support/seed-invoice.ts, as in
 * billing-platform.spec.ts), so it needs E2E_DATABASE_URL (set by `npm test`).
 */
const suffix = uniqueSuffix();

function seedInvoice(ws: string, tier: string): string {
  const url = process.env.E2E_DATABASE_URL;
  if (!url)
    throw new Error(
      "billing-subscription.spec needs E2E_DATABASE_URL (the server's PostgreSQL database) to seed an invoice; `npm test` sets it",
    );
  const out = execFileSync(
    "node",
    ["--conditions=react-server", "--import", "tsx", "test/support/seed-invoice.ts", ws, tier, ADMIN.email],
    { env: { ...process.env, DATABASE_URL: url }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  return /result (ivc_[0-9a-z]{26})/.exec(out)![1]!;
}

async function createTier(page: Page, tier: string): Promise<void> {
  await page.getByRole("navigation").getByRole("link", { name: "Subscription tiers" }).click();
  const form = page.getByRole("form", { name: "Tier" });
  await form.getByLabel("Tier id").fill(tier);
  await form.getByLabel("Name").fill(`E2E ${suffix}`);
  await form.getByLabel("Plan it grants").selectOption("team");
  await form.getByLabel("Monthly price (USD)").fill("29.00");
  await form.getByLabel("Included credit per period (USD)").fill("5");
  await form.getByRole("button", { name: "Create tier" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Saved tier ${tier}: 29.00 USD a month.` })).toBeVisible();
}

test("billing console: cancel at period end and resume, payment methods, credit notes, cancel now", async ({
  page,
}) => {
  test.setTimeout(150_000);
  const ws = await signInAndCreateWorkspace(page, `E2E subscription ${suffix}`);
  const tier = `e2e-sub-${suffix}`.slice(0, 32);
  await createTier(page, tier);
  const ivc = seedInvoice(ws, tier);
  const state = page.getByLabel("Subscription state");

  await test.step("the subscription is active; cancelled at the period's end it says when; resumed it is active", async () => {
    await page.goto(`/console/w/${ws}/billing`);
    await expect(state).toContainText("Active");
    await expect(state).toContainText(`Subscribed to ${tier} at 29.00 USD a month.`);
    await page.getByRole("button", { name: "Cancel at period end" }).click();
    const dialog = page.getByRole("dialog", { name: `Cancel ${tier} at the period's end?` });
    await expect(dialog).toContainText("You can resume it until then.");
    await dialog.getByRole("button", { name: "Cancel at period end" }).click();
    await expect(dialog).toBeHidden();
    await expect(state).toContainText("Cancelling");
    await expect(state).toContainText(
      new RegExp(`Cancels on .+: the subscription to ${tier} ends then and the workspace drops to the free plan`),
    );
    await expect(page.getByRole("button", { name: "Cancel at period end" })).toHaveCount(0);
    await page.getByRole("button", { name: "Resume subscription" }).click();
    await expect(state).toContainText("Active");
    await expect(state).toContainText(`Subscribed to ${tier}`);
    await expect(page.getByRole("button", { name: "Resume subscription" })).toHaveCount(0);
  });

  await test.step("payment methods: no saved card, and no way to add one without a Stripe gateway", async () => {
    await expect(page.getByText("No saved card.")).toBeVisible();
    await expect(page.getByText(/Card payments are not set up on this platform \(no Stripe gateway\)/)).toBeVisible();
    await expect(page.getByRole("button", { name: "Add a card" })).toHaveCount(0);
  });

  await test.step("credit notes: one lowers what is left to pay; one on the paid invoice is refunded to the wallet", async () => {
    await page.goto(`/console/w/${ws}/billing/invoices/${ivc}`);
    const doc = page.getByRole("article", { name: `Invoice ${ivc}` });
    await expect(page.getByRole("button", { name: "Pay now 29.00 USD" })).toBeVisible();
    await page.getByRole("button", { name: "Issue credit note" }).click();
    const dialog = page.getByRole("dialog", { name: /^Credit note against CAP-\d{6}$/ });
    const issue = dialog.getByRole("button", { name: /^Issue credit note/ });
    await expect(issue).toBeDisabled();
    await dialog.getByLabel("Amount (USD)").fill("0");
    await expect(dialog.getByText("A positive amount with at most the currency's decimals.")).toBeVisible();
    await dialog.getByLabel("Amount (USD)").fill("5.00");
    await expect(issue).toBeDisabled();
    await dialog.getByLabel("Reason").fill("E2E service credit");
    await dialog.getByRole("button", { name: "Issue credit note of 5.00 USD" }).click();
    await expect(dialog).toBeHidden();
    const notes = doc.getByRole("region", { name: "Credit notes" });
    await expect(notes.getByRole("listitem")).toHaveCount(1);
    await expect(notes).toContainText("−5.00 USD · E2E service credit");
    await expect(page.getByRole("button", { name: "Pay now 24.00 USD" })).toBeVisible();

    await page.getByRole("button", { name: "Pay now 24.00 USD" }).click();
    await expect(page.getByRole("status").filter({ hasText: "The invoice is paid from the wallet." })).toBeVisible();
    await page.getByRole("button", { name: "Issue credit note" }).click();
    await dialog.getByLabel("Amount (USD)").fill("4.00");
    await dialog.getByLabel("Reason").fill("E2E refund");
    await dialog.getByRole("button", { name: "Issue credit note of 4.00 USD" }).click();
    await expect(dialog).toBeHidden();
    await expect(notes.getByRole("listitem")).toHaveCount(2);
    await expect(notes).toContainText("−4.00 USD · E2E refund (4.00 USD refunded to the wallet)");
  });

  await test.step("cancel now: the subscription ends at once and the workspace is on the free plan", async () => {
    await page.goto(`/console/w/${ws}/billing`);
    await expect(state).toContainText("Active");
    await page.getByRole("button", { name: "Cancel now" }).click();
    const dialog = page.getByRole("dialog", { name: `Cancel ${tier} now?` });
    await expect(dialog).toContainText("This cannot be resumed.");
    await dialog.getByRole("button", { name: "Cancel now" }).click();
    await expect(dialog).toBeHidden();
    await expect(state).toContainText("No subscription");
    await expect(state).toContainText("The workspace is on the free plan without a subscription.");
    await expect(page.getByRole("button", { name: /^Cancel / })).toHaveCount(0);
  });
});
