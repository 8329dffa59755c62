import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/**
 * Page checks shared by walks through the console (the same rules as
 * e2e/console/quality.spec.ts): axe's WCAG 2.1 A/AA rules with serious or
 * critical impact, and controls out of reach on a phone.
 */
export const SCREENSHOTS = "test-results/screenshots";

/** Waits until the page has painted its content (no loading placeholders left). */
export async function settle(page: Page): Promise<void> {
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByText(/^Loading .*…$/)).toHaveCount(0, { timeout: 15_000 });
}

export async function axeFindings(page: Page): Promise<string[]> {
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

/** Controls of the main area (and the header) outside the viewport's width, and the page's sideways overflow. */
export async function offscreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width + 1)
      out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${width})`);
    for (const el of Array.from(
      document.querySelectorAll<HTMLElement>("main button, main a[href], main input, main select, header button"),
    )) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (el.closest("dialog:not([open])")) continue;
      if (r.left < -1 || r.right > width + 1)
        out.push(
          `${el.tagName.toLowerCase()} "${(el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 60)}" spans ${Math.round(r.left)}..${Math.round(r.right)}`,
        );
    }
    return out;
  });
}
