import { rmSync } from "node:fs";
import { type Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import {
  bridgeToken,
  createConfirmedProduct,
  makeAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * Bridge permissions of service identities in the console: an owner creates
 * an identity limited to `data.kv:get`, reads its secret once and sees the
 * permission chips in the list; "Only these actions" with nothing ticked is
 * refused by the server and explained next to the control; an identity
 * without permissions is listed as allowed every contract action. The
 * limited identity may get but not set (permission_denied), and the
 * invocations page explains the denial in words.
 *
 * The product is frozen from a local git repository whose contract allows
 * every data.kv action (served by the platform, no binding needed); the
 * server accepts file:// sources with SOURCE_ALLOW_LOCAL=1 (playwright.config.ts).
 */
const suffix = uniqueSuffix();
const WORKSPACE_NAME = `E2E bridge permissions ${suffix}`;
const LIMITED = `kv-reader-${suffix}`;
const UNRESTRICTED = `all-actions-${suffix}`;

const KV = {
  id: "data.kv",
  required: true,
  actions: ["get", "set", "delete", "list", "increment"],
  scope: { prefix: "/app", max_value_bytes: 1024, max_keys: 100 },
  credential_owner: "platform",
  provider: { allow: ["platform"], fallback: "none" },
};

let repoDir = "";
test.beforeAll(() => {
  repoDir = makeAppRepository("capstan-e2e-perm-repo-", [KV]).dir;
});
test.afterAll(() => {
  if (repoDir) rmSync(repoDir, { recursive: true, force: true });
});

async function fillIdentity(page: Page, name: string) {
  await page.getByLabel("Name", { exact: true }).fill(name);
  const product = page.getByLabel("Product", { exact: true });
  await expect(product.locator("option")).toHaveCount(2); // "Choose a product" + ours
  await product.selectOption({ index: 1 });
}

test("console service identities: Bridge permissions are chosen at creation, listed and enforced", async ({
  page,
  request,
  capstan,
}) => {
  test.setTimeout(120_000);
  const ws = await signInAndCreateWorkspace(page, WORKSPACE_NAME);

  await test.step("create a product with a data.kv contract and confirm it", async () => {
    await createConfirmedProduct(page, ws, repoDir);
    await expect(page.getByRole("row").filter({ hasText: "data.kv" }).first()).toBeVisible();
  });

  const permissions = page.getByRole("group", { name: "Bridge permissions" });

  await test.step("the form offers every contract action by default, and says permissions are fixed", async () => {
    await page.goto(`/console/w/${ws}/service-identities`);
    await expect(page.getByRole("heading", { level: 1, name: "Service identities" })).toBeVisible();
    await expect(permissions.getByLabel("All actions in the product's contract")).toBeChecked();
    await expect(permissions).toContainText("Permissions cannot be changed later");
    await expect(permissions.getByLabel("data.kv:get", { exact: true })).toHaveCount(0);
  });

  await test.step("'Only these actions' with nothing ticked is refused next to the control", async () => {
    await fillIdentity(page, LIMITED);
    await permissions.getByLabel("Only these actions").check();
    await expect(permissions.getByRole("group", { name: "data.kv" })).toBeVisible();
    await page.getByRole("button", { name: "Create service identity" }).click();
    await expect(permissions.getByRole("listitem").filter({ hasText: "/permissions" })).toBeVisible();
    await expect(page.getByRole("alert").filter({ hasText: "does not match the schema" })).toBeVisible();
    await expect(page.getByLabel("Client secret", { exact: true })).toHaveCount(0);
  });

  await test.step("a capability's 'all actions' box covers its single actions", async () => {
    const all = permissions.getByLabel("All actions of this capability storage.object:*");
    await all.check();
    await expect(permissions.getByLabel("storage.object:read", { exact: true })).toBeChecked();
    await expect(permissions.getByLabel("storage.object:read", { exact: true })).toBeDisabled();
    await all.uncheck();
    await expect(permissions.getByLabel("storage.object:read", { exact: true })).not.toBeChecked();
  });

  const client = { id: "", secret: "" };
  await test.step("create the identity with data.kv:get only; the secret is shown once", async () => {
    await permissions.getByLabel("data.kv:get", { exact: true }).check();
    await page.getByRole("button", { name: "Create service identity" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Service identity "${LIMITED}" created` })).toBeVisible();
    await expect(permissions.getByRole("listitem")).toHaveCount(0);
    const secret = page.getByLabel("Client secret", { exact: true });
    await expect(secret).toHaveValue(/^cssec_[A-Za-z0-9_-]{20,}$/);
    await expect(page.getByLabel("Client ID", { exact: true })).toHaveValue(/^svc_[0-9a-z]{26}$/);
    client.id = await page.getByLabel("Client ID", { exact: true }).inputValue();
    client.secret = await secret.inputValue();
    await page.getByRole("button", { name: "Done" }).click();
    await expect(secret).toHaveCount(0);
    // The form is back to its default.
    await expect(permissions.getByLabel("All actions in the product's contract")).toBeChecked();
  });

  await test.step("the list shows the identity's permissions as chips", async () => {
    const row = page.getByRole("row").filter({ hasText: LIMITED });
    const chips = row.getByRole("list", { name: "Bridge permissions" });
    await expect(chips.getByRole("listitem")).toHaveText(["data.kv:get"]);
    await expect(page.getByText("Permissions cannot be changed later").first()).toBeVisible();
  });

  await test.step("an identity without permissions may call every contract action", async () => {
    await fillIdentity(page, UNRESTRICTED);
    await page.getByRole("button", { name: "Create service identity" }).click();
    await expect(
      page.getByRole("status").filter({ hasText: `Service identity "${UNRESTRICTED}" created` }),
    ).toBeVisible();
    await page.getByRole("button", { name: "Done" }).click();
    const row = page.getByRole("row").filter({ hasText: UNRESTRICTED });
    await expect(row).toContainText("All contract actions");
    await expect(row.getByRole("list", { name: "Bridge permissions" })).toHaveCount(0);
  });

  await test.step("after a reload the permissions still come from the server", async () => {
    await page.reload();
    await expect(
      page.getByRole("row").filter({ hasText: LIMITED }).getByRole("list", { name: "Bridge permissions" }),
    ).toHaveText("data.kv:get");
    await expect(page.getByRole("row").filter({ hasText: UNRESTRICTED })).toContainText("All contract actions");
  });

  await test.step("the Bridge lets the identity get, and denies set with permission_denied", async () => {
    const headers = { authorization: `Bearer ${await bridgeToken(capstan, client)}` };
    const get = await request.post("/v1/capabilities/data.kv/get", { headers, data: { key: "/app/greeting" } });
    expect(get.status(), await get.text()).toBe(200);
    expect(await get.json()).toMatchObject({ outcome: "completed", output: { key: "/app/greeting", found: false } });
    const set = await request.post("/v1/capabilities/data.kv/set", {
      headers,
      data: { key: "/app/greeting", value: "hi" },
    });
    expect(set.status(), await set.text()).toBe(403);
    expect(await set.json()).toMatchObject({ reason: "permission_denied" });
  });

  await test.step("the invocations page explains the denial in words", async () => {
    await page.goto(`/console/w/${ws}/invocations`);
    await expect(page.getByRole("heading", { level: 1, name: "Capability invocations" })).toBeVisible();
    const denied = page.getByRole("row").filter({ hasText: "permission_denied" });
    await expect(denied).toContainText("set");
    await expect(denied).toContainText("The service identity's Bridge permissions do not include this action.");
    await expect(denied.getByRole("link", { name: "Service identities" })).toHaveAttribute(
      "href",
      `/console/w/${ws}/service-identities`,
    );
    await expect(page.getByRole("row").filter({ hasText: "completed" })).toContainText("get");
  });
});
