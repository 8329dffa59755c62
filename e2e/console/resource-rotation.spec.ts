import { rmSync } from "node:fs";
import { expect, test } from "../support/fixtures";
import {
  createConfirmedProduct,
  makeDeployableAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * Rotating a managed database's password in the console: a PostgreSQL
 * resource attached to a product, Rotate password with its overlap picked in
 * the dialog, the new connection URL shown once (another login role, another
 * password), the previous role listed with when it ends and rotation refused
 * until then, the secret gone for good once dismissed (also after a reload),
 * then End now drops the previous role. Managed PostgreSQL needs the e2e
 * server on PostgreSQL: E2E_DATABASE_URL, set by `npm test`.
 */
const suffix = uniqueSuffix();

test.describe("managed resource credentials", () => {
  let repoDir = "";
  test.beforeAll(() => {
    if (!process.env.E2E_DATABASE_URL)
      throw new Error(
        "resource-rotation.spec needs the e2e server on PostgreSQL (E2E_DATABASE_URL) for a managed database; `npm test` sets it",
      );
    repoDir = makeDeployableAppRepository("capstan-e2e-rotate-", "rotation app").dir;
  });
  test.afterAll(() => {
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
  });

  test("console resources: rotate a database password, the new one shown once, the previous one ended", async ({
    page,
  }) => {
    test.setTimeout(180_000);
    const ws = await signInAndCreateWorkspace(page, `E2E rotation ${suffix}`);
    await createConfirmedProduct(page, ws, repoDir);
    const name = `rot-${suffix}`.slice(0, 30);
    const userOf = (url: string) => /^postgresql:\/\/([^:]+):([^@]+)@/.exec(url);
    const row = page.getByRole("row").filter({ hasText: name });

    let first = "";
    await test.step("a database attached to the product; its first password shown once", async () => {
      await page.goto(`/console/w/${ws}/resources`);
      await page.getByLabel("Name").fill(name);
      await page.getByLabel("Attach to product").selectOption({ index: 1 });
      await page.getByRole("button", { name: "Create resource" }).click();
      first = await page.getByLabel("Connection URL").inputValue();
      expect(userOf(first)?.[1]).toMatch(/^mres_/);
      await page.getByRole("button", { name: "Done" }).click();
      await expect(row.getByText("Available", { exact: true })).toBeVisible({ timeout: 30_000 });
    });

    let second = "";
    await test.step("rotate: the dialog asks for the overlap; the new URL is shown once", async () => {
      await row.locator("summary", { hasText: "Credentials" }).click();
      const roles = row.getByRole("list", { name: `Login roles of ${name}` });
      await expect(roles.getByRole("listitem")).toHaveCount(1);
      await expect(roles.getByText(userOf(first)![1]!)).toBeVisible();
      await row.getByRole("button", { name: `Rotate password of ${name}` }).click();
      const dialog = page.getByRole("dialog", { name: `Rotate the password of ${name}?` });
      await expect(dialog.getByText(/The old role keeps working for the overlap you choose/)).toBeVisible();
      await expect(dialog.getByLabel("Keep the old secret working for")).toHaveValue("86400");
      await dialog.getByLabel("Keep the old secret working for").selectOption({ label: "1 hour" });
      await dialog.getByRole("button", { name: "Rotate password" }).click();
      await expect(page.getByText(`New password of ${name}`)).toBeVisible();
      await expect(page.getByText(/This password is shown once and never again/)).toBeVisible();
      second = await page.getByLabel("Connection URL").inputValue();
      const [, user2, pass2] = userOf(second)!;
      const [, user1, pass1] = userOf(first)!;
      expect(user2).toMatch(/^mres_/);
      expect(user2).not.toBe(user1);
      expect(pass2).not.toBe(pass1);
    });

    await test.step("the previous role is listed with its end; rotating again waits for it", async () => {
      const roles = row.getByRole("list", { name: `Login roles of ${name}` });
      await expect(roles.getByRole("listitem")).toHaveCount(2);
      const previous = roles.getByRole("listitem").filter({ hasText: userOf(first)![1]! });
      await expect(previous.getByText("Previous", { exact: true })).toBeVisible();
      await expect(previous.getByText(/Previous credential ends at/)).toBeVisible();
      await expect(
        roles
          .getByRole("listitem")
          .filter({ hasText: userOf(second)![1]! })
          .getByText("Active", { exact: true }),
      ).toBeVisible();
      await expect(row.getByText(/previous password works until/)).toBeVisible();
      await expect(row.getByRole("button", { name: `Rotate password of ${name}` })).toBeDisabled();
    });

    await test.step("dismissed, the new password is never shown again (not after a reload either)", async () => {
      await page.getByRole("button", { name: "Done" }).click();
      await expect(page.getByText(/This password is shown once/)).toHaveCount(0);
      await page.reload();
      await expect(row.getByText("Available", { exact: true })).toBeVisible();
      await expect(page.getByText(/This password is shown once/)).toHaveCount(0);
      expect(await page.content()).not.toContain(userOf(second)![2]!);
    });

    await test.step("End now drops the previous role; rotation is possible again", async () => {
      await row.locator("summary", { hasText: "Credentials" }).click();
      await row.getByRole("button", { name: `End now the previous credential of ${name}` }).click();
      const dialog = page.getByRole("dialog", { name: `End the previous credential ${userOf(first)![1]} now?` });
      await expect(dialog.getByText(/The old role is refused at once/)).toBeVisible();
      await dialog.getByRole("button", { name: "End now" }).click();
      const roles = row.getByRole("list", { name: `Login roles of ${name}` });
      await expect(roles.getByRole("listitem")).toHaveCount(1, { timeout: 30_000 });
      await expect(roles.getByText(userOf(second)![1]!)).toBeVisible();
      await expect(row.getByRole("button", { name: `Rotate password of ${name}` })).toBeEnabled();
    });

    await test.step("detach and destroy it at once: no database left behind", async () => {
      await row.getByRole("button", { name: `Detach ${name}` }).click();
      await page
        .getByRole("dialog", { name: `Detach ${name}?` })
        .getByRole("button", { name: "Detach" })
        .click();
      await expect(row.getByText("Not attached")).toBeVisible();
      await row.getByRole("button", { name: `Delete ${name}` }).click();
      const dialog = page.getByRole("dialog", { name: `Delete ${name}?` });
      await dialog.getByLabel(/Skip the grace period/).check();
      await dialog.getByRole("button", { name: "Destroy now" }).click();
      await expect(page.getByText("No managed resources yet.")).toBeVisible({ timeout: 30_000 });
    });
  });
});
