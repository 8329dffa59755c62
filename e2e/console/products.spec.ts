import { rmSync } from "node:fs";
import { type Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import {
  createProductAndOpenRevision,
  makeAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * Source intake in the console: create a product from a repository whose host
 * is not on the allow-list and watch the freeze settle as `rejected`, with
 * the rejection explained in words.
 *
 * The frozen-repository flow needs a local git repository, which the server
 * only accepts with SOURCE_ALLOW_LOCAL=1 (playwright.config.ts sets it).
 */
const suffix = uniqueSuffix();
const WORKSPACE_NAME = `E2E products ${suffix}`;
const REPO_URL = `https://example.org/capstan-e2e-${suffix}.git`;

test("console products: a repository on a host that is not allowed is rejected and explained", async ({ page }) => {
  let ws = "";
  await test.step("sign in and create a workspace", async () => {
    ws = await signInAndCreateWorkspace(page, WORKSPACE_NAME);
  });

  await test.step("the products page starts empty", async () => {
    await page.goto(`/console/w/${ws}/products`);
    await expect(page.getByRole("heading", { level: 1, name: "Products" })).toBeVisible();
    await expect(page.getByText("No products yet.")).toBeVisible();
  });

  await test.step("create a product from a repository on example.org", async () => {
    await page.getByLabel("Repository URL").fill(REPO_URL);
    await expect(page.getByLabel("Ref")).toHaveValue("main");
    await page.getByRole("button", { name: "Create product" }).click();
    const freeze = page.getByRole("region", { name: "Source freeze" });
    await expect(freeze).toBeVisible();
    await expect(freeze).toContainText(REPO_URL);
  });

  await test.step("the freeze settles as rejected, explained in words", async () => {
    const freeze = page.getByRole("region", { name: "Source freeze" });
    await expect(freeze.getByText("Rejected", { exact: true })).toBeVisible({ timeout: 30_000 });
    const explanation = freeze.getByRole("status").filter({ hasText: "The source was rejected" });
    await expect(explanation).toContainText(
      "The repository's host (example.org) is not on the list of allowed source hosts.",
    );
    await expect(explanation).toContainText("host_not_allowed");
    await expect(freeze.getByRole("link", { name: "Review revision" })).toHaveCount(0);
  });

  await test.step("the product is listed; its page lists its one revision", async () => {
    const row = page.getByRole("row").filter({ hasText: REPO_URL });
    await expect(row).toContainText("main");
    await row.getByRole("link", { name: `capstan-e2e-${suffix}` }).click();
    await expect(page).toHaveURL(new RegExp(`/console/w/${ws}/products/prod_[0-9a-z]{26}$`));
    await expect(page.getByRole("heading", { level: 1, name: `capstan-e2e-${suffix}` })).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: /rev_/ })).toHaveCount(1);
    await expect(page.getByRole("button", { name: "Freeze again" })).toBeEnabled();
  });
});

/** A repository with a node app: `main` asks for storage, `wide` also for email, `bad` names an unknown capability. */
function makeRepository(): string {
  const storage = {
    id: "storage.object",
    required: true,
    actions: ["read", "write"],
    scope: { prefix: "/uploads", max_object_bytes: 1048576 },
    credential_owner: "workspace",
    provider: { allow: ["s3", "r2"], prefer: "s3", fallback: "listed" },
  };
  const email = {
    id: "email.send",
    required: false,
    actions: ["send"],
    scope: {
      from_addresses: ["app@example.com"],
      recipient_domains: ["*"],
      max_recipients: 5,
      max_message_bytes: 100000,
    },
    credential_owner: "workspace",
    provider: { allow: ["ses"], fallback: "none" },
  };
  const { dir, git, contract } = makeAppRepository("capstan-e2e-repo-", [storage]);
  git("checkout", "-qb", "wide");
  contract([storage, email]);
  git("commit", "-qam", "wide");
  git("checkout", "-qb", "bad");
  contract([{ ...storage, id: "fs.write" }]);
  git("commit", "-qam", "bad");
  git("checkout", "-q", "main");
  return dir;
}

test.describe("with local sources", () => {
  let repoDir = "";
  test.beforeAll(() => {
    repoDir = makeRepository();
  });
  test.afterAll(() => {
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
  });

  async function freezeAgain(page: Page, ref: string) {
    await page.getByLabel("Ref").fill(ref);
    await page.getByRole("button", { name: "Freeze again" }).click();
    const freeze = page.getByRole("region", { name: "Source freeze" });
    await expect(freeze.getByText("Frozen", { exact: true })).toBeVisible({ timeout: 30_000 });
    await freeze.getByRole("link", { name: /^Review revision/ }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Revision" })).toBeVisible();
  }

  test("console products: review, edit and confirm a frozen revision; widening needs approval", async ({ page }) => {
    test.setTimeout(120_000);
    const ws = await signInAndCreateWorkspace(page, `E2E local products ${suffix}`);

    await test.step("create a product from the local repository; the freeze settles as frozen", async () => {
      await createProductAndOpenRevision(page, ws, repoDir);
    });

    await test.step("the detected descriptor is summarised; the contract waits for confirmation", async () => {
      await expect(page.getByText("npm run start").first()).toBeVisible();
      await expect(
        page.getByText("The capability contract becomes ready when the descriptor is confirmed."),
      ).toBeVisible();
    });

    await test.step("a credential in an edit is refused and names the field", async () => {
      await page.getByLabel("Start command").fill("node server.js --token=ghp_abcdefghijklmnopqrstuvwxyz0123456789");
      await page.getByRole("button", { name: "Confirm descriptor" }).click();
      await expect(
        page.getByRole("alert").filter({ hasText: "A field looks like it contains a credential" }),
      ).toContainText("Start command (build_plan.start.command)");
    });

    await test.step("confirm with edits: the edited fields become developer, the contract is ready", async () => {
      await page.getByLabel("Start command").fill("node server.js");
      await page.getByLabel("Health check path").fill("/health");
      await expect(page.getByText("You changed: Start command, Health check path.")).toBeVisible();
      await page.getByRole("button", { name: "Confirm descriptor" }).click();
      await expect(page.getByText("Descriptor confirmed")).toBeVisible();
      const row = page.getByRole("row").filter({ hasText: "storage.object" });
      await expect(row).toContainText("prefix: /uploads");
      await expect(row).toContainText("allow: s3, r2");
      await expect(page.getByRole("button", { name: "Confirm descriptor" })).toHaveCount(0);
    });

    await test.step("a wider contract needs an owner or admin's approval", async () => {
      await page.getByRole("link", { name: "Open product" }).click();
      await freezeAgain(page, "wide");
      await page.getByRole("button", { name: "Confirm descriptor" }).click();
      await expect(
        page.getByRole("alert").filter({ hasText: "asks for more than the product's current contract" }),
      ).toBeVisible();
      await page.getByLabel("Approve widening").check();
      await page.getByRole("button", { name: "Confirm descriptor" }).click();
      await expect(page.getByText("Descriptor confirmed")).toBeVisible();
      await expect(page.getByRole("row").filter({ hasText: "email.send" })).toBeVisible();
    });

    await test.step("an unknown capability rejects the contract, explained in words", async () => {
      await page.getByRole("link", { name: "Open product" }).click();
      await freezeAgain(page, "bad");
      await expect(page.getByRole("alert").filter({ hasText: "The capability contract was rejected" })).toContainText(
        "names a capability the platform does not offer",
      );
    });
  });
});
