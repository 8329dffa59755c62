import { rmSync } from "node:fs";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { axeFindings, settle } from "../support/quality";
import { startDnsServer, type TDnsServer } from "../../test/support/dns-server";
import {
  ADMIN,
  createConfirmedProduct,
  makeDeployableAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * The findings of issue #37, each checked the way an owner would have met it:
 * - the release page names its version (v1, not ver_…) and, live on staging,
 *   says where with the URL and Visit (never "Not live"); a passing
 *   evaluation lists its checks;
 * - Domains names the product, shows a ✓/✗ per DNS record from the last
 *   check, and its DNS values never wrap a character per line (1440 and 390 px);
 * - after saving a tier the form edits it: "Save tier", no "Create tier";
 * - a non-admin of the platform sees no platform links (Rate cards…), and
 *   account pages keep the workspace's navigation.
 * The pages it opens are axe-clean (serious/critical) at 1440 and 390 px.
 */
const suffix = uniqueSuffix();
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function axeClean(page: Page, what: string) {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await settle(page);
    expect(await axeFindings(page), `${what} at ${width} px`).toEqual([]);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/**
 * Verify, again after a refusal (a hostname is sent for a check at most every
 * CAPSTAN_DOMAIN_VERIFY_INTERVAL_SECONDS, 10 s; adding it sent the first), until `then` holds.
 */
async function verifyUntil(page: Page, host: string, then: () => Promise<void>) {
  await expect(async () => {
    await page
      .getByRole("row")
      .getByRole("button", { name: `Verify ${host}` })
      .click();
    await then();
  }).toPass({ intervals: [11_000], timeout: 90_000 });
}

/** An API token of the signed-in user, created on the tokens page. */
async function apiToken(page: Page): Promise<string> {
  await page.goto("/console/tokens");
  await page.getByLabel("Token name").fill(`shape-${suffix}`);
  await page.getByRole("button", { name: "Create token" }).click();
  return page.getByLabel("New API token").inputValue();
}

test.describe("console shape", () => {
  let repoDir = "";
  let dns: TDnsServer;
  test.beforeAll(async () => {
    repoDir = makeDeployableAppRepository("capstan-e2e-shape-", "hello from the shape spec").dir;
    dns = await startDnsServer(Number(process.env.E2E_DNS_PORT ?? "5399"));
  });
  test.afterAll(async () => {
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
    await dns?.close();
  });

  test("release page: v1 and the live URL on staging; a passing evaluation lists its checks", async ({ page }) => {
    test.setTimeout(300_000);
    const ws = await signInAndCreateWorkspace(page, `E2E shape release ${suffix}`);
    await createConfirmedProduct(page, ws, repoDir);

    await test.step("the passing evaluation lists its six checks, each Passed", async () => {
      await page.getByRole("button", { name: "Evaluate", exact: true }).click();
      const latest = page.getByRole("region", { name: "Latest evaluation" });
      const checks = latest.getByRole("list", { name: "Checks" }).getByRole("listitem");
      await expect(checks.filter({ hasText: "Passed" })).toHaveCount(6, { timeout: 180_000 });
      for (const name of [
        "Descriptor confirmed",
        "Contract ready",
        "Preview deployment healthy",
        "Surface reachable",
        "Smoke requests",
        "Log free of crashes",
      ]) {
        await expect(checks.filter({ hasText: name })).toContainText("Passed");
      }
    });

    await test.step("release v1 and deploy it to staging", async () => {
      await page.getByRole("button", { name: "Create release" }).click();
      let dialog = page.getByRole("dialog", { name: "New release: Version" });
      await dialog.getByLabel("Version").selectOption({ label: "v1" });
      await dialog.getByRole("button", { name: "Next" }).click();
      dialog = page.getByRole("dialog", { name: "New release: Audience" });
      await dialog.getByLabel("Audience").selectOption("internal");
      await dialog.getByRole("button", { name: "Next" }).click();
      await page.getByRole("dialog", { name: "New release: Window" }).getByRole("button", { name: "Next" }).click();
      await page
        .getByRole("dialog", { name: "New release: Review" })
        .getByRole("button", { name: "Create release" })
        .click();
      await page
        .getByRole("dialog", { name: "Release created" })
        .getByRole("button", { name: "Deploy to staging" })
        .click();
      await expect(page).toHaveURL(/\/releases\/rel_[0-9a-z]{26}$/);
    });

    await test.step("the release page names v1, not ver_…, and once live says where, with the URL and Visit", async () => {
      await expect(page.getByRole("heading", { level: 1, name: "Release v1" })).toBeVisible();
      const version = page.getByRole("definition").filter({ hasText: /^v1/ });
      await expect(version).toBeVisible();
      await expect(page.getByRole("list", { name: "Status timeline" }).getByText("Live", { exact: true })).toBeVisible({
        timeout: 120_000,
      });
      const liveAt = page.getByRole("term").filter({ hasText: "Live at" }).locator("xpath=following-sibling::dd[1]");
      await expect(liveAt).toContainText("Live on Staging", { timeout: 30_000 });
      await expect(liveAt).not.toContainText("Not live");
      const visit = liveAt.getByRole("link", { name: /^Visit/ });
      await expect(visit).toBeVisible();
      const href = (await visit.getAttribute("href"))!;
      expect(href).toMatch(/^https?:\/\//);
      await expect(liveAt.locator("code")).toHaveText(href);
    });

    await axeClean(page, "the release page");
  });

  test("domains: the product by name, a ✓/✗ per DNS record, values that do not wrap per character", async ({
    page,
  }) => {
    test.setTimeout(180_000);
    const host = `shape-${suffix}.example.com`;
    const product = `Shape shop ${suffix}`;
    const ws = await signInAndCreateWorkspace(page, `E2E shape domains ${suffix}`);
    await page.goto(`/console/w/${ws}/products`);
    await page.getByLabel("Repository URL").fill(`https://example.org/shape-${suffix}.git`);
    await page.getByLabel("Name (optional)").fill(product);
    await page.getByRole("button", { name: "Create product" }).click();
    await expect(page.getByRole("region", { name: "Source freeze" })).toBeVisible();

    await page.goto(`/console/w/${ws}/domains`);
    await expect(page.getByLabel("Product")).toContainText(product);
    await expect(page.getByLabel("Product")).not.toContainText("prod_");
    await page.getByLabel("Hostname").fill(host);
    await page.getByLabel("Environment").selectOption("staging");
    await page.getByRole("button", { name: "Add domain" }).click();
    const records = page.getByRole("list", { name: `DNS records for ${host}` }).getByRole("listitem");
    const txt = records.filter({ hasText: "TXT" });
    const cname = records.filter({ hasText: "CNAME" });

    await test.step("the table names the product, not its id", async () => {
      const row = page
        .getByRole("row")
        .filter({ has: page.getByRole("rowheader", { name: new RegExp(host.replace(/\./g, "\\.")) }) });
      await expect(row).toContainText(`staging of ${product}`);
      await expect(row.getByRole("link", { name: product })).toBeVisible();
      await expect(row).not.toContainText("prod_");
    });

    await test.step("only the TXT record published: TXT ✓, CNAME ✗", async () => {
      const value = (await txt.locator("[data-dns-value]").textContent())!;
      dns.zone.set(`_capstan-challenge.${host}`, { TXT: [value] });
      await verifyUntil(page, host, async () => {
        await expect(cname).toContainText("record: missing or wrong", { timeout: 10_000 });
      });
      await expect(cname.locator("[data-record-check]")).toHaveText("✗");
      await expect(txt).toContainText("record: found and correct");
      await expect(txt.locator("[data-record-check]")).toHaveText("✓");
    });

    await test.step("both published: both ✓ and the domain verified", async () => {
      dns.zone.set(host, { CNAME: "edge.capstan.test" });
      await verifyUntil(page, host, async () => {
        await expect(page.getByRole("row").getByText("Verified", { exact: true })).toBeVisible({ timeout: 10_000 });
      });
      await expect(records.locator("[data-record-check]")).toHaveText(["✓", "✓"]);
    });

    await test.step("DNS names and values keep their width at 1440 and 390 px (no character per line)", async () => {
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: 900 });
        for (const cell of await page.locator("[data-dns-value], [data-dns-name]").all()) {
          const box = (await cell.boundingBox())!;
          const text = (await cell.textContent()) ?? "";
          // One character per line would make it a few pixels wide and many lines tall.
          expect(box.width, `"${text}" at ${width} px is ${box.width} px wide`).toBeGreaterThan(
            Math.min(120, text.length * 6),
          );
          expect(box.height, `"${text}" at ${width} px is ${box.height} px tall`).toBeLessThan(80);
        }
      }
    });

    await axeClean(page, "the domains page");
  });

  test("tiers: after saving a new tier the form edits it; no Create tier", async ({ page }) => {
    const tier = `shape-${suffix}`.slice(0, 32);
    await signInAndCreateWorkspace(page, `E2E shape tiers ${suffix}`);
    await page.goto("/console/tiers");
    const form = page.getByRole("form", { name: "Tier" });
    await form.getByLabel("Tier id").fill(tier);
    await form.getByLabel("Name", { exact: true }).fill(`Shape ${suffix}`);
    await form.getByLabel(/^Monthly price/).fill("12.00");
    await form.getByRole("button", { name: "Create tier" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Saved tier ${tier}: 12.00 USD a month.` })).toBeVisible();
    await expect(form.getByRole("button", { name: "Save tier" })).toBeVisible();
    await expect(form.getByRole("button", { name: "Create tier" })).toHaveCount(0);
    await expect(page.getByLabel("Tier to edit")).toHaveValue(tier);
    await expect(form.getByLabel("Tier id")).toHaveAttribute("readonly", "");
    await axeClean(page, "the tiers page");
  });

  test("a non-admin sees no platform links; account pages keep the workspace navigation", async ({
    page,
    browser,
    request,
  }) => {
    test.setTimeout(120_000);
    const member = {
      email: `shape-${suffix}@example.com`,
      name: `Shape Member ${suffix}`,
      password: "shape-member-password-1",
    };
    const ws = await signInAndCreateWorkspace(page, `E2E shape nav ${suffix}`);
    const token = await apiToken(page);
    await createMember(request, token, ws, member);

    await test.step("the platform admin sees the platform links", async () => {
      await page.goto(`/console/w/${ws}`);
      const nav = page.getByRole("navigation", { name: "Console" });
      await expect(nav.getByRole("link", { name: "Rate cards" })).toBeVisible();
    });

    const context = await browser.newContext();
    const other = await context.newPage();
    await other.goto("/console");
    await other.getByLabel("Email").fill(member.email);
    await other.getByLabel("Password").fill(member.password);
    await other.getByRole("button", { name: "Sign in" }).click();
    await expect(other).toHaveURL(/\/console$/);
    const nav = other.getByRole("navigation", { name: "Console" });

    await test.step("the developer sees no platform link, on a workspace page or an account page", async () => {
      await other.goto(`/console/w/${ws}`);
      await expect(nav.getByRole("link", { name: "Deployments" })).toBeVisible();
      for (const name of ["Rate cards", "Subscription tiers", "Signing keys", "Runner hosts"]) {
        await expect(nav.getByRole("link", { name })).toHaveCount(0);
      }
    });

    await test.step("an account page (API tokens) keeps the workspace's navigation", async () => {
      await nav.getByRole("link", { name: "API tokens" }).click();
      await expect(other.getByRole("heading", { level: 1, name: "API tokens" })).toBeVisible();
      const deployments = nav.getByRole("link", { name: "Deployments" });
      await expect(deployments).toBeVisible();
      await expect(deployments).toHaveAttribute("href", `/console/w/${ws}/deployments`);
      await expect(nav.getByRole("link", { name: "Rate cards" })).toHaveCount(0);
    });
    await context.close();
    expect(ADMIN.email).not.toBe(member.email);
  });
});

/** A new account (platform API), added to the workspace as developer. */
async function createMember(
  request: APIRequestContext,
  token: string,
  ws: string,
  member: { email: string; name: string; password: string },
) {
  const created = await request.post("/v1/platform/users", { headers: bearer(token), data: member });
  expect(created.status(), await created.text()).toBe(201);
  const added = await request.post(`/v1/workspaces/${ws}/members`, {
    headers: bearer(token),
    data: { email: member.email, role: "developer" },
  });
  expect(added.status(), await added.text()).toBeLessThan(300);
}
