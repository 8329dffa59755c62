import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import AxeBuilder from "@axe-core/playwright";
import { type Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { ADMIN, createWorkspace, signInAndCreateWorkspace, uniqueSuffix } from "../support/console";

/**
 * Billing's platform pages and the printable invoice (issue #19): the
 * platform admin publishes a rate card version (a bad one is refused with
 * the problem shown once), creates and edits a tier, and as the owner of a
 * workspace opens that workspace's invoice from the Billing page. axe finds
 * nothing serious or critical on each page.
 *
 * An invoice is issued only at month close: the spec seeds one through the
 * billing services in a child process on the server's PostgreSQL database
 * (test/support/seed-invoice.ts), so it needs E2E_DATABASE_URL (set by
 * `npm test` whenever PostgreSQL is reachable, as in CI).
 */
const suffix = uniqueSuffix();

async function axeFindings(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 5)
          .join(" | ")}`,
    );
}

function seedInvoice(ws: string, tier: string): string {
  const url = process.env.E2E_DATABASE_URL;
  if (!url)
    throw new Error(
      "billing-platform.spec needs E2E_DATABASE_URL (the server's PostgreSQL database) to seed an invoice; `npm test` sets it",
    );
  const out = execFileSync(
    "node",
    ["--conditions=react-server", "--import", "tsx", "test/support/seed-invoice.ts", ws, tier, ADMIN.email],
    {
      env: { ...process.env, DATABASE_URL: url },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return /result (ivc_[0-9a-z]{26})/.exec(out)![1]!;
}

test("platform admin publishes a rate card and edits a tier; the owner prints the workspace's invoice", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const ws = await signInAndCreateWorkspace(page, `E2E billing ${suffix}`);
  const model = `e2e-${suffix}`;
  const tier = `e2e-${suffix}`.slice(0, 32);

  await test.step("rate cards: a version in the past is refused once; a valid one is published and listed", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Rate cards" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Rate cards" })).toBeVisible();
    const form = page.getByRole("form", { name: "Publish a rate card version" });
    await form.getByLabel("Provider").fill("openai");
    await form.getByLabel("Model").fill(model);
    await form.getByLabel("Input tokens, per million (USD)").fill("0.15");
    await form.getByLabel("Output tokens, per million (USD)").fill("0.6");
    await form.getByLabel("Per call (USD)").fill("0.0001");
    await form.getByLabel("Effective from (your local time)").fill("2020-01-01T00:00");
    await form.getByRole("button", { name: "Publish version" }).click();
    const problem = page.getByRole("alert").filter({ hasText: /past/i });
    await expect(problem).toHaveCount(1);
    await form.getByLabel("Effective from (your local time)").fill("");
    await form.getByRole("button", { name: "Publish version" }).click();
    await expect(page.getByRole("status").filter({ hasText: `for openai / ${model}` })).toBeVisible();
    await expect(problem).toHaveCount(0);
    const row = page.getByRole("row").filter({ hasText: `openai / ${model}` });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText("in force");
    await expect(row).toContainText("0.15 USD");
    await expect(row).toContainText("0.0001 USD");
    await expect(row).toContainText(ADMIN.email);
    expect(await axeFindings(page)).toEqual([]);
  });

  await test.step("tiers: create one, then edit its price", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Subscription tiers" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Subscription tiers" })).toBeVisible();
    const form = page.getByRole("form", { name: "Tier" });
    await form.getByLabel("Tier id").fill(tier);
    await form.getByLabel("Name").fill(`E2E ${suffix}`);
    await form.getByLabel("Plan it grants").selectOption("team");
    await form.getByLabel("Monthly price (USD)").fill("29.00");
    await form.getByLabel("Included credit per period (USD)").fill("5");
    await form.getByRole("button", { name: "Create tier" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Saved tier ${tier}: 29.00 USD a month.` })).toBeVisible();
    await page.getByLabel("Tier to edit").selectOption(tier);
    await expect(form.getByLabel("Monthly price (USD)")).toHaveValue("29.00");
    await form.getByLabel("Monthly price (USD)").fill("39.00");
    await form.getByRole("button", { name: "Save tier" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Saved tier ${tier}: 39.00 USD a month.` })).toBeVisible();
    const row = page.getByRole("row").filter({ hasText: tier });
    await expect(row).toContainText("39.00 USD");
    await expect(row).toContainText("5.00 USD");
    expect(await axeFindings(page)).toEqual([]);
  });

  await test.step("invoice: the owner opens it from the Billing page; it is a printable document", async () => {
    const ivc = seedInvoice(ws, tier);
    await page.goto(`/console/w/${ws}/billing`);
    const listed = page.getByRole("row").filter({ has: page.getByRole("link", { name: /^Invoice CAP-\d{6} USD$/ }) });
    await expect(listed.getByText("Open", { exact: true })).toBeVisible();
    await expect(listed).toContainText("39.00 USD");
    await page.getByRole("link", { name: /^Invoice CAP-\d{6} USD$/ }).click();
    await expect(page).toHaveURL(new RegExp(`/console/w/${ws}/billing/invoices/${ivc}$`));
    await expect(page.getByRole("heading", { level: 1, name: /^Invoice CAP-\d{6}$/ })).toBeVisible();
    const doc = page.getByRole("article", { name: `Invoice ${ivc}` });
    await expect(doc).toContainText("E2E Printing GmbH");
    await expect(doc).toContainText("Tax id DE999999999");
    await expect(doc.getByRole("row").filter({ hasText: `Subscription ${tier}` })).toContainText("39.00 USD");
    await expect(doc.getByLabel("Totals")).toContainText("39.00 USD");
    await expect(page.getByRole("button", { name: "Print" })).toBeVisible();
    expect(await axeFindings(page)).toEqual([]);
    await page.screenshot({ path: "test-results/screenshots/invoice-1440.png", fullPage: true });
    // Printed, the console's frame is gone and the invoice remains.
    await page.emulateMedia({ media: "print" });
    await expect(page.getByRole("navigation")).toBeHidden();
    await expect(doc).toBeVisible();
    await page.emulateMedia({ media: "screen" });
    // Pay now (issue #36): the open invoice is paid from the wallet's paid balance, and its PDF downloads.
    await expect(doc.locator("span").filter({ hasText: /^Open$/ })).toBeVisible();
    await page.getByRole("button", { name: "Pay now 39.00 USD" }).click();
    await expect(page.getByRole("status").filter({ hasText: "The invoice is paid from the wallet." })).toBeVisible();
    // The status chip (the totals also have a "Paid" row).
    await expect(doc.locator("span").filter({ hasText: /^Paid$/ })).toBeVisible();
    await expect(page.getByRole("button", { name: /^Pay now/ })).toHaveCount(0);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download PDF" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^invoice-CAP-\d{6}\.pdf$/);
    const pdf = readFileSync(await download.path());
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    expect(await axeFindings(page)).toEqual([]);
    // The same invoice id under another workspace of the same owner: not found there.
    await page.goto("/console");
    const other = await createWorkspace(page, `E2E billing other ${suffix}`);
    await page.goto(`/console/w/${other}/billing/invoices/${ivc}`);
    await expect(page.getByRole("alert").filter({ hasText: `Invoice ${ivc} was not found` })).toBeVisible();
    await expect(page.getByRole("article")).toHaveCount(0);
  });
});
