import { type Locator, type Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { ADMIN, uniqueSuffix } from "../support/console";

/**
 * Issue #21 item 7: a keyboard-only walk of a main flow, with no mouse at all.
 * Sign in, create a workspace, skip to the content, move through the sidebar,
 * mint an API token, copy it, open the revoke dialog, back out with Escape
 * (focus returns to the button that opened it), then revoke for real. Every
 * control reached shows a visible focus ring, and the browser logs no error
 * and throws nothing on the way.
 */
const suffix = uniqueSuffix();
const WORKSPACE = `E2E keyboard ${suffix}`;
const TOKEN = `kbd-${suffix}`;

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

/** Press Tab until `target` has the focus (at most `max` times); fails if it never does. */
async function tabTo(page: Page, target: Locator, max = 100): Promise<void> {
  await target.waitFor({ state: "attached" });
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`Tab did not reach ${target.toString()} within ${max} presses`);
}

/** The focused element draws a focus indicator (Tailwind's ring is a box-shadow; an outline counts too). */
async function expectFocusVisible(target: Locator): Promise<void> {
  const style = await target.evaluate((el) => {
    const s = getComputedStyle(el);
    return { shadow: s.boxShadow, outline: s.outlineStyle, width: s.outlineWidth };
  });
  const ring = style.shadow !== "none" || (style.outline !== "none" && style.width !== "0px");
  expect(ring, `focus indicator on ${target.toString()}: ${JSON.stringify(style)}`).toBe(true);
}

test("keyboard only: sign in, create a workspace, navigate, mint, copy and revoke a token; focus always visible, no browser errors", async ({
  page,
}) => {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console.error: ${m.text()}`);
  });

  await test.step("sign in with Tab, typing and Enter", async () => {
    await page.goto("/console");
    await expect(page).toHaveURL(/\/signin/);
    const email = page.getByLabel("Email");
    await tabTo(page, email);
    await expectFocusVisible(email);
    await page.keyboard.type(ADMIN.email);
    await tabTo(page, page.getByLabel("Password"));
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/console$/);
    await expect(page.getByRole("heading", { level: 1, name: "Workspaces" })).toBeVisible();
  });

  await test.step("the first Tab offers 'Skip to content', which moves focus to the page", async () => {
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "Workspaces" })).toBeVisible();
    const skip = page.getByRole("link", { name: "Skip to content" });
    await tabTo(page, skip, 1);
    await expect(skip).toBeInViewport();
    await page.keyboard.press("Enter");
    await expect(page.locator("main#main")).toBeFocused();
  });

  await test.step("create a workspace from the keyboard", async () => {
    await tabTo(page, page.getByLabel("Workspace name"));
    await page.keyboard.type(WORKSPACE);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/console\/w\/ws_[0-9a-z]{26}$/);
    await expect(page.getByRole("heading", { level: 1, name: WORKSPACE })).toBeVisible();
  });

  await test.step("move through the sidebar with Tab and Enter", async () => {
    const sidebar = page.locator("#console-sidebar");
    const members = sidebar.getByRole("link", { name: "Members", exact: true });
    await tabTo(page, members);
    await expectFocusVisible(members);
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { level: 1, name: "Members" })).toBeVisible();

    const tokens = sidebar.getByRole("link", { name: "API tokens", exact: true });
    await tabTo(page, tokens, 150);
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { level: 1, name: "API tokens" })).toBeVisible();
  });

  await test.step("mint a token: type a name, choose the expiry with the arrow keys, submit, copy", async () => {
    await tabTo(page, page.getByLabel("Token name"));
    await page.keyboard.type(TOKEN);
    const expiry = page.getByLabel("Expires after");
    await tabTo(page, expiry, 3);
    await page.keyboard.press("End"); // the longest expiry
    await expect(expiry.locator("option:checked")).toHaveText("90 days");
    const create = page.getByRole("button", { name: "Create token" });
    await tabTo(page, create, 3);
    await expectFocusVisible(create);
    await page.keyboard.press("Enter");
    const secret = page.getByLabel("New API token");
    await expect(secret).toBeVisible();
    const value = await secret.inputValue();
    expect(value).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const copy = page.getByRole("button", { name: "Copy token" });
    await tabTo(page, copy);
    await page.keyboard.press("Enter");
    await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
  });

  const row = page.getByRole("row").filter({ hasText: TOKEN });
  const revoke = row.getByRole("button", { name: `Revoke token ${TOKEN}` });

  await test.step("the revoke dialog opens on Cancel, Escape closes it and gives focus back", async () => {
    await tabTo(page, revoke);
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: `Revoke token "${TOKEN}"?` });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(revoke).toBeFocused();
    await expect(row).toContainText("Active");
  });

  await test.step("revoke for real: Tab from Cancel to the confirm button, Enter", async () => {
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: `Revoke token "${TOKEN}"?` });
    await expect(dialog).toBeVisible();
    const confirm = dialog.getByRole("button", { name: "Revoke token" });
    await tabTo(page, confirm, 3);
    await expectFocusVisible(confirm);
    await page.keyboard.press("Enter");
    await expect(dialog).toBeHidden();
    await expect(row).toContainText("Revoked");
  });

  expect(errors, "the browser logged errors during the walk").toEqual([]);
});
