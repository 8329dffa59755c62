import { rmSync } from "node:fs";
import { expect, test } from "../support/fixtures";
import {
  deployToPreviewAndWaitActive,
  makeDeployableAppRepository,
  openSessionFromDeployment,
  sendSessionRequest,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * Sessions in the console: deploy a tiny app to preview, open a session from
 * its surface's page, send requests through "Send a request" and read each
 * invocation (outcome, HTTP status, the five admission checks, the response
 * body evidence); then revoke the access and see the session close.
 */
const suffix = uniqueSuffix();
const GREETING = "hello from e2e";
const ALL_PASSED = ["Permission: passed", "Policy: passed", "Binding: passed", "Verification: passed", "Usage: passed"];

test.describe("sessions", () => {
  let repoDir = "";
  test.beforeAll(() => {
    repoDir = makeDeployableAppRepository("capstan-e2e-sessions-", GREETING).dir;
  });
  test.afterAll(() => {
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
  });

  test("console sessions: open a session on a preview surface, send requests, read the evidence, revoke the access", async ({
    page,
  }) => {
    test.setTimeout(300_000);
    const ws = await signInAndCreateWorkspace(page, `E2E sessions ${suffix}`);
    let ses = "";

    await test.step("deploy the app to preview and open a session from its surface's page", async () => {
      await deployToPreviewAndWaitActive(page, ws, repoDir);
      ses = await openSessionFromDeployment(page);
      await expect(page.getByText("Active", { exact: true }).first()).toBeVisible();
      await expect(page.getByText("No requests yet. Send one above.")).toBeVisible();
      // The trail names sessions, not "Deployments / ses_…" (issue #37 item 4).
      const trail = page.getByRole("navigation", { name: "Breadcrumb" });
      await expect(trail).toContainText("Sessions");
      await expect(trail).not.toContainText("Deployments");
    });

    await test.step("a path the server would refuse is caught in the form", async () => {
      await page.getByLabel("Path").fill("no-slash");
      await page.getByRole("button", { name: "Send request" }).click();
      await expect(page.getByText("The path must start with /.")).toBeVisible();
      await expect(page.getByLabel("Path")).toHaveAttribute("aria-invalid", "true");
      await expect(page.getByText("No requests yet. Send one above.")).toBeVisible();
    });

    await test.step("GET / is admitted and answers 200, every check passed", async () => {
      await sendSessionRequest(page, { method: "GET", path: "/" });
      await expect(page.getByText("Sent as #1: admitted, HTTP 200")).toBeVisible();
      const row = page
        .getByRole("row")
        .filter({ has: page.getByRole("button", { name: "Show details of invocation #1" }) });
      await expect(row).toContainText("GET");
      await expect(row).toContainText("Admitted");
      await expect(row).toContainText("admitted");
      await expect(row.getByRole("cell", { name: "200", exact: true })).toBeVisible();
      await expect(row.getByRole("list", { name: "Admission checks" }).getByRole("listitem")).toHaveText(ALL_PASSED);
    });

    await test.step("its details show the checks, the execution and the response body", async () => {
      await page.getByRole("button", { name: "Show details of invocation #1" }).click();
      const details = page.locator("tr[id^=invocation-details-]");
      await expect(details.getByRole("list", { name: "Admission checks" }).getByRole("listitem")).toHaveCount(5);
      await expect(details.getByText("Admitted: every check passed.")).toBeVisible();
      await expect(details.getByText("Completed", { exact: true })).toBeVisible();
      await expect(details.getByText(/^\d+(\.\d)? (bytes|KiB|MiB|GiB)$|^Not measured$/).first()).toBeVisible();
      await expect(details.getByRole("region", { name: "Response body" })).toContainText(GREETING, { timeout: 15_000 });
      await page.getByRole("button", { name: "Hide details of invocation #1" }).click();
    });

    await test.step("POST with a body: the body is uploaded first and kept as evidence", async () => {
      await sendSessionRequest(page, { method: "POST", path: "/echo", body: "ping from e2e" });
      await expect(page.getByText("Sent as #2: admitted, HTTP 200")).toBeVisible();
      await page.getByRole("button", { name: "Show details of invocation #2" }).click();
      const details = page.locator("tr[id^=invocation-details-]");
      await expect(details.getByRole("region", { name: "Request body" })).toContainText("ping from e2e", {
        timeout: 15_000,
      });
      await expect(details.getByRole("region", { name: "Response body" })).toContainText(GREETING);
      // Newest first: #2 sits above #1.
      await expect(page.getByRole("button", { name: /^Show details of invocation #/ })).toHaveCount(1);
      await expect(page.getByRole("button", { name: /details of invocation #/ }).first()).toHaveAccessibleName(
        "Hide details of invocation #2",
      );
    });

    await test.step("the surface's page lists the session and its access; revoking the access closes the session", async () => {
      await page.getByRole("link", { name: "Open surface" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Surface" })).toBeVisible();
      const sessionRow = page
        .getByRole("row")
        .filter({ has: page.getByRole("link", { name: ses }) })
        .first();
      await expect(sessionRow).toContainText("Active");
      await expect(sessionRow).toContainText("(you)");
      await page.getByRole("button", { name: /^Revoke access acc_/ }).click();
      const dialog = page.getByRole("dialog", { name: "Revoke this access?" });
      await dialog.getByRole("button", { name: "Revoke access" }).click();
      await expect(dialog).toBeHidden();
      await expect(page.getByText("Revoked", { exact: true })).toBeVisible();
      // The State cell itself (the row also holds the Closed column's hidden label on narrow screens).
      const stateCell = sessionRow.getByRole("cell").nth(1);
      await expect(stateCell).toContainText("Closed");
      await expect(stateCell).not.toContainText("Active");
      await expect(sessionRow).toContainText("access_revoked");
      await sessionRow.getByRole("link", { name: ses }).click();
      await expect(
        page.getByText("This session is closed: it takes no more requests.", { exact: false }),
      ).toBeVisible();
      await expect(page.getByRole("button", { name: "Send request" })).toHaveCount(0);
    });
  });
});
