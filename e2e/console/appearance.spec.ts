import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { type Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import {
  createProductAndOpenRevision,
  makeAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * How the console looks and where a page sits (#21 items 6 and 7):
 * - breadcrumbs on every page (workspace name -> area -> item name), a
 *   `nav` "Breadcrumb" whose last step is aria-current, truncated on one
 *   line at 390 px without sideways scrolling;
 * - dark mode follows the system setting: axe (WCAG 2.1 A/AA) finds no
 *   serious or critical issue on the main pages with colorScheme "dark", and
 *   a dark screenshot of each is written to test-results/screenshots/;
 * - Largest Contentful Paint of each main page (a fresh load, measured in the
 *   page with PerformanceObserver), written to test-results/lcp.json with a
 *   table in the output: reported against the 1 s goal, never asserted on.
 */
const suffix = uniqueSuffix();
const WORKSPACE_NAME = `E2E appearance ${suffix} with a deliberately long workspace name`;
const SHOTS = "test-results/screenshots";
const LCP_REPORT = "test-results/lcp.json";
const LCP_GOAL_MS = 1000;

let repoDir = "";
test.beforeAll(() => {
  repoDir = makeAppRepository("capstan-e2e-appearance-", []).dir;
});
test.afterAll(() => {
  if (repoDir) rmSync(repoDir, { recursive: true, force: true });
});

type TSeeded = { ws: string; product: string; revision: string };

async function seed(page: Page, name = WORKSPACE_NAME): Promise<TSeeded> {
  const ws = await signInAndCreateWorkspace(page, name);
  await createProductAndOpenRevision(page, ws, repoDir);
  const revision = /revisions\/(rev_[0-9a-z]{26})/.exec(page.url())![1]!;
  const productHref = await page
    .getByRole("navigation", { name: "Breadcrumb" })
    .getByRole("link")
    .nth(2)
    .getAttribute("href");
  const product = /products\/(prod_[0-9a-z]{26})/.exec(productHref ?? "")![1]!;
  return { ws, product, revision };
}

/** The main pages: every sidebar area a new owner uses first, a product, a revision and the account pages. */
function mainPages({ ws, product, revision }: TSeeded): [string, string][] {
  const w = `/console/w/${ws}`;
  return [
    ["overview", w],
    ["members", `${w}/members`],
    ["plan", `${w}/plan`],
    ["products", `${w}/products`],
    ["product", `${w}/products/${product}`],
    ["revision", `${w}/revisions/${revision}`],
    ["deployments", `${w}/deployments`],
    ["releases", `${w}/releases`],
    ["invocations", `${w}/invocations`],
    ["credentials", `${w}/credentials`],
    ["bindings", `${w}/bindings`],
    ["service-identities", `${w}/service-identities`],
    ["webhooks", `${w}/webhooks`],
    ["audit", `${w}/audit`],
    ["workspaces", "/console"],
    ["tokens", "/console/tokens"],
  ];
}

async function settle(page: Page) {
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByText(/^Loading .*…$/)).toHaveCount(0, { timeout: 15_000 });
}

test("breadcrumbs: workspace name, area and item name on every page; the last step is the page; one line at 390 px", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const seeded = await seed(page);
  const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });

  await test.step("the revision page: workspace / Products / product name / Revision rev_…", async () => {
    await expect(crumbs.getByRole("link")).toHaveText([WORKSPACE_NAME, "Products", /\S+/]);
    const current = crumbs.locator('[aria-current="page"]');
    await expect(current).toHaveText(`Revision ${seeded.revision}`);
    // The product's name, once the page has it (its id until then).
    await expect(crumbs.getByRole("link").nth(2)).not.toHaveText(/^prod_/);
    const productName = (await crumbs.getByRole("link").nth(2).textContent())!;
    await crumbs.getByRole("link", { name: productName }).click();
    await expect(page.getByRole("heading", { level: 1, name: productName })).toBeVisible();
    await expect(crumbs.locator('[aria-current="page"]')).toHaveText(productName);
    await crumbs.getByRole("link", { name: "Products" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Products" })).toBeVisible();
    await expect(crumbs.locator('[aria-current="page"]')).toHaveText("Products");
  });

  await test.step("every main page has a trail whose last step is aria-current", async () => {
    for (const [name, path] of mainPages(seeded)) {
      await page.goto(path);
      await settle(page);
      await expect(crumbs, name).toHaveCount(1);
      await expect(crumbs.locator('[aria-current="page"]'), name).toHaveCount(1);
      await expect(crumbs.locator("li").last().locator('[aria-current="page"]'), name).toHaveCount(1);
    }
  });

  await test.step("390 px: the trail stays on one line inside the screen, the long workspace name is cut with an ellipsis", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/console/w/${seeded.ws}/revisions/${seeded.revision}`);
    await settle(page);
    const fit = await page.evaluate(() => {
      const nav = document.querySelector('nav[aria-label="Breadcrumb"]')!;
      const r = nav.getBoundingClientRect();
      const ws = nav.querySelector("a")!;
      const items = Array.from(nav.querySelectorAll("li")).map((li) => Math.round(li.getBoundingClientRect().top));
      return {
        pageScrollsSideways: document.documentElement.scrollWidth > document.documentElement.clientWidth + 1,
        inside: r.left >= 0 && r.right <= document.documentElement.clientWidth + 1,
        oneLine: new Set(items).size === 1,
        workspaceTruncated: ws.scrollWidth > ws.clientWidth,
      };
    });
    expect(fit).toEqual({ pageScrollsSideways: false, inside: true, oneLine: true, workspaceTruncated: true });
    await expect(crumbs.getByRole("link", { name: WORKSPACE_NAME })).toHaveAttribute("title", WORKSPACE_NAME);
  });
});

test("dark mode follows the system setting: axe clean on the main pages; LCP of each main page reported to test-results/lcp.json", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(300_000);
  mkdirSync(SHOTS, { recursive: true });
  const seeded = await seed(page, `E2E appearance dark ${suffix}`);
  const pages = mainPages(seeded);
  await page.setViewportSize({ width: 1440, height: 900 });

  const lcp: { page: string; path: string; lcp_ms: number | null; element: string | null }[] = [];
  await test.step("light: Largest Contentful Paint of a fresh load of each main page", async () => {
    await page.emulateMedia({ colorScheme: "light" });
    for (const [name, path] of pages) {
      await page.goto(path);
      await settle(page);
      const m = await page.evaluate(
        () =>
          new Promise<{ ms: number; element: string | null } | null>((resolve) => {
            let last: (PerformanceEntry & { element?: Element | null }) | undefined;
            const po = new PerformanceObserver((list) => {
              last = list.getEntries().at(-1) ?? last;
            });
            po.observe({ type: "largest-contentful-paint", buffered: true });
            // Buffered entries arrive asynchronously; the latest candidate is known shortly after.
            setTimeout(() => {
              po.disconnect();
              const el = last?.element;
              resolve(
                last
                  ? {
                      ms: last.startTime,
                      element: el
                        ? `${el.tagName.toLowerCase()} "${(el.textContent ?? "").trim().slice(0, 40)}"`
                        : null,
                    }
                  : null,
              );
            }, 250);
          }),
      );
      lcp.push({
        page: name,
        path: path.replace(seeded.ws, "{ws}"),
        lcp_ms: m ? Math.round(m.ms) : null,
        element: m?.element ?? null,
      });
    }
    const report = {
      generated_at: new Date().toISOString(),
      base_url: baseURL,
      viewport: "1440x900",
      goal_ms: LCP_GOAL_MS,
      note: "Largest Contentful Paint of a fresh load (page.goto) of each page, from the browser's PerformanceObserver; reported, not asserted.",
      pages: lcp.map((r) => ({ ...r, within_goal: r.lcp_ms === null ? null : r.lcp_ms <= LCP_GOAL_MS })),
    };
    writeFileSync(LCP_REPORT, JSON.stringify(report, null, 2) + "\n");
    const rows = lcp.map(
      (r) =>
        `${r.page.padEnd(20)} ${(r.lcp_ms === null ? "n/a" : `${r.lcp_ms} ms`).padStart(9)}  ${r.lcp_ms !== null && r.lcp_ms > LCP_GOAL_MS ? "over 1 s" : "        "}  ${r.element ?? ""}`,
    );
    console.log(`Largest Contentful Paint (${LCP_REPORT}, goal ${LCP_GOAL_MS} ms, not asserted):\n${rows.join("\n")}`);
    // Every page yields an LCP entry (the measurement works); its value is only reported.
    expect(lcp.filter((r) => r.lcp_ms === null).map((r) => r.page)).toEqual([]);
  });

  await test.step("dark: the page follows prefers-color-scheme and axe finds nothing serious or critical", async () => {
    await page.emulateMedia({ colorScheme: "dark" });
    const findings: string[] = [];
    for (const [name, path] of pages) {
      await page.goto(path);
      await settle(page);
      const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
      for (const v of results.violations.filter((x) => x.impact === "serious" || x.impact === "critical")) {
        findings.push(
          `${name}: ${v.id} (${v.impact}): ${v.help} — ${v.nodes
            .map((n) => n.target.join(" "))
            .slice(0, 5)
            .join(" | ")}`,
        );
      }
      await page.screenshot({ path: `${SHOTS}/${name}-1440-dark.png`, fullPage: true });
    }
    // The system setting reached the page: dark body, dark color-scheme.
    const look = await page.evaluate(() => ({
      dark: matchMedia("(prefers-color-scheme: dark)").matches,
      body: getComputedStyle(document.body).backgroundColor,
    }));
    expect(look).toEqual({
      dark: true,
      body: expect.not.stringMatching(/^(rgb\(248, 250, 252\)|oklch\(0\.98|lab\(98)/) as unknown,
    });
    expect(findings, "serious or critical axe findings in dark mode").toEqual([]);
  });
});
