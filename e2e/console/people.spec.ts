import { expect, test } from "../support/fixtures";
import { ADMIN, signInAndCreateWorkspace, uniqueSuffix } from "../support/console";

/**
 * People (#21): members and audit records show people by name and email,
 * not `usr_` ids; the id is one click away (a copy button that puts it on
 * the clipboard).
 */
test.use({ permissions: ["clipboard-read", "clipboard-write"] });

const WORKSPACE_NAME = `E2E people ${uniqueSuffix()}`;

test("console people: members and audit by name and email, ids one click away", async ({ page }) => {
  const ws = await signInAndCreateWorkspace(page, WORKSPACE_NAME);

  let userId = "";
  await test.step("members: the owner by name and email; the copy button copies the usr_ id", async () => {
    await page.goto(`/console/w/${ws}/members`);
    const row = page
      .getByRole("table", { name: "Members of this workspace" })
      .getByRole("row")
      .filter({ hasText: ADMIN.email });
    await expect(row).toContainText("Platform owner");
    const copy = row.getByRole("button", { name: /^Copy id usr_[0-9a-z]{26}$/ });
    userId = (await copy.getAttribute("aria-label"))!.replace("Copy id ", "");
    await copy.click();
    await expect(row.getByRole("button", { name: `Copied ${userId}` })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(userId);
    // The id is not shown as text: people are.
    await expect(row.getByText(userId, { exact: true })).toBeHidden();
  });

  await test.step("audit: the actor of the workspace's first record is the owner by name and email", async () => {
    await page.goto(`/console/w/${ws}/audit`);
    const table = page.getByRole("table", { name: "Audit records, newest first" });
    const row = table.getByRole("row").filter({ hasText: "member.upserted" }).first();
    await expect(row).toContainText("Platform owner");
    await expect(row).toContainText(ADMIN.email);
    await expect(row.getByRole("button", { name: `Copy id ${userId}` }).first()).toBeVisible();
    expect(await row.evaluate((el) => (el as HTMLElement).innerText)).not.toContain("usr_");
  });
});
