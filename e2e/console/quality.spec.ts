import { mkdirSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { type Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { signInAndCreateWorkspace, uniqueSuffix } from "../support/console";

/**
 * Quality gates of the console (#21), on every console page at 1440 px and
 * at 390 px (a phone):
 * - axe (WCAG 2.1 A/AA rules): no serious or critical finding;
 * - at 390 px nothing scrolls sideways and every button and link of the
 *   page's main area lies inside the viewport (tables become stacked cards);
 * - a screenshot of each page at both widths in test-results/screenshots/
 *   (README, "Console screenshots"), for a reviewer to look at.
 * The workspace holds a product and a service identity, so the lists show rows.
 */
const SHOTS = "test-results/screenshots";
const suffix = uniqueSuffix();
const REPO_URL = `https://example.org/quality-${suffix}.git`;

const WORKSPACE_PAGES = [
  ["overview", ""],
  ["members", "/members"],
  ["plan", "/plan"],
  ["billing", "/billing"],
  ["products", "/products"],
  ["deployments", "/deployments"],
  ["releases", "/releases"],
  ["domains", "/domains"],
  ["resources", "/resources"],
  ["invocations", "/invocations"],
  ["pending", "/pending"],
  ["credentials", "/credentials"],
  ["bindings", "/bindings"],
  ["service-identities", "/service-identities"],
  ["webhooks", "/webhooks"],
  ["dead-letters", "/dead-letters"],
  ["audit", "/audit"],
] as const;
const ACCOUNT_PAGES = [
  ["workspaces", "/console"],
  ["tokens", "/console/tokens"],
  ["signing-keys", "/console/signing-keys"],
  ["rate-cards", "/console/rate-cards"],
  ["tiers", "/console/tiers"],
  ["not-found", "/console/no-such-page"],
] as const;

type TSeeded = { ws: string; product: string };

async function seed(page: Page, label: string): Promise<TSeeded> {
  const ws = await signInAndCreateWorkspace(page, `E2E ${label} ${suffix}`);
  await page.goto(`/console/w/${ws}/products`);
  await page.getByLabel("Repository URL").fill(REPO_URL);
  await page.getByLabel("Name (optional)").fill("Quality shop");
  await page.getByRole("button", { name: "Create product" }).click();
  const freeze = page.getByRole("region", { name: "Source freeze" });
  await expect(freeze.getByText("Rejected", { exact: true })).toBeVisible({ timeout: 30_000 });
  const product = /products\/(prod_[0-9a-z]{26})/.exec(
    (await freeze.getByRole("link", { name: /^Open product/ }).getAttribute("href"))!,
  )![1]!;
  await page.goto(`/console/w/${ws}/service-identities`);
  await page.getByLabel("Name", { exact: true }).fill("Quality deployer with a rather long name");
  await page.getByLabel("Product", { exact: true }).selectOption({ label: `Quality shop · ${REPO_URL} (main)` });
  await page.getByRole("button", { name: "Create service identity" }).click();
  await expect(page.getByRole("status").filter({ hasText: "created" })).toBeVisible();
  await page.getByRole("button", { name: "Done" }).click();
  return { ws, product };
}

/** Waits until the page has painted its content (no loading placeholders left). */
async function settle(page: Page) {
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByText(/^Loading .*…$/)).toHaveCount(0, { timeout: 15_000 });
}

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

/** Controls of the main area (and the header) that lie outside a 390 px viewport, and the page's sideways overflow. */
async function offscreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width + 1)
      out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${width})`);
    for (const el of Array.from(
      document.querySelectorAll<HTMLElement>("main button, main a[href], main input, main select, header button"),
    )) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue; // not rendered (hidden)
      if (el.closest("dialog:not([open])")) continue;
      if (r.left < -1 || r.right > width + 1)
        out.push(
          `${el.tagName.toLowerCase()} "${(el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 60)}" spans ${Math.round(r.left)}..${Math.round(r.right)}`,
        );
    }
    return out;
  });
}

test("console quality: axe clean, no sideways scrolling on a phone, screenshots of every page at 1440 and 390 px", async ({
  page,
}) => {
  test.setTimeout(300_000);
  mkdirSync(SHOTS, { recursive: true });
  const { ws, product } = await seed(page, "quality");
  const pages: [string, string][] = [
    ...WORKSPACE_PAGES.map(([name, path]): [string, string] => [name, `/console/w/${ws}${path}`]),
    ["product", `/console/w/${ws}/products/${product}`],
    ...ACCOUNT_PAGES.map(([name, path]): [string, string] => [name, path]),
  ];
  const findings: string[] = [];
  const overflow: string[] = [];
  for (const [width, height, label] of [
    [1440, 900, "1440"],
    [390, 844, "390"],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const [name, path] of pages) {
      await page.goto(path);
      await settle(page);
      for (const f of await axeFindings(page)) findings.push(`${label} ${name}: ${f}`);
      if (width === 390) for (const o of await offscreen(page)) overflow.push(`${name}: ${o}`);
      await page.screenshot({ path: `${SHOTS}/${name}-${label}.png`, fullPage: true });
    }
  }
  expect(
    { axe: findings, outOfReachAt390: overflow },
    "serious or critical axe findings; controls out of reach at 390 px",
  ).toEqual({
    axe: [],
    outOfReachAt390: [],
  });
});

test("console phone menu and wide tables: the sidebar sits behind Menu at 390 px; identity actions stay visible at 1440 px", async ({
  page,
}) => {
  const { ws } = await seed(page, "phone menu");

  await test.step("390 px: navigation is behind the Menu button, opens, navigates and closes", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/console/w/${ws}`);
    const nav = page.getByRole("navigation", { name: "Console" });
    await expect(nav).toBeHidden();
    const menu = page.getByRole("button", { name: "Menu" });
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await menu.click();
    await expect(nav).toBeVisible();
    await expect(page.getByRole("button", { name: "Close menu" })).toHaveAttribute("aria-expanded", "true");
    await nav.getByRole("link", { name: "Service identities" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Service identities" })).toBeVisible();
    await expect(nav).toBeHidden();
  });

  await test.step("390 px: the identity's actions are on screen without scrolling sideways", async () => {
    const card = page.getByRole("table", { name: "Service identities of this workspace" });
    for (const name of [/^Rename service identity/, /^Rotate secret/, /^Revoke Quality/]) {
      const box = (await card.getByRole("button", { name }).boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
  });

  await test.step("1440 px: the identity's actions are inside the table's visible area", async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.reload();
    const table = page.getByRole("table", { name: "Service identities of this workspace" });
    const scroller = table.locator("xpath=..");
    const visible = (await scroller.boundingBox())!;
    for (const name of [/^Rename service identity/, /^Rotate secret/, /^Revoke Quality/]) {
      const button = table.getByRole("button", { name });
      await expect(button).toBeVisible();
      const box = (await button.boundingBox())!;
      expect(box.x + box.width, `${name} ends inside the table's visible area`).toBeLessThanOrEqual(
        visible.x + visible.width + 1,
      );
    }
  });
});
