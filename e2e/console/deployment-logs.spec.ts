import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "../support/fixtures";
import {
  deployToPreviewAndWaitActive,
  makeDeployableAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * The deployment page's Logs tab (issue #37 item 2): the build steps with
 * their outcome and duration, every line with its time, follow (new lines of
 * the running app appear without a reload, and stop appearing while follow is
 * off), search (only the lines that contain the words) and download (the
 * whole log as a file). The app logs each request's path, so the test writes
 * lines into the run log by visiting its surface.
 */
const suffix = uniqueSuffix();
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test.describe("deployment logs", () => {
  let repoDir = "";
  test.beforeAll(() => {
    const repo = makeDeployableAppRepository("capstan-e2e-logs-", "logs app");
    writeFileSync(
      path.join(repo.dir, "server.js"),
      `console.log("app starting ${suffix}");
require("http").createServer((q, s) => { console.log("served " + q.url); s.end("logs app"); }).listen(Number(process.env.PORT));
`,
    );
    repo.git("commit", "-qam", "an app that logs each request");
    repoDir = repo.dir;
  });
  test.afterAll(() => {
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
  });

  test("the logs tab: build steps with durations, timestamps, follow, search, download", async ({ page, context }) => {
    test.setTimeout(300_000);
    const ws = await signInAndCreateWorkspace(page, `E2E logs ${suffix}`);
    await deployToPreviewAndWaitActive(page, ws, repoDir);
    const surface = (await page
      .getByRole("region", { name: "Deployment summary" })
      .getByRole("link", { name: /^Visit http:\/\/srf-/ })
      .getAttribute("href"))!;
    const app = await context.newPage();
    const visit = async (what: string) => {
      const res = await app.goto(new URL(what, surface).href);
      expect(res?.status()).toBe(200);
    };

    await page.getByRole("tab", { name: "Logs" }).click();
    const buildLog = page.getByRole("log", { name: "Build log" });
    const runLog = page.getByRole("log", { name: "Run log" });
    const runLine = (text: string) => runLog.locator("[data-log-line]").filter({ hasText: text });

    await test.step("build steps, each with its outcome and duration", async () => {
      const steps = page.getByRole("list", { name: "Build steps" }).getByRole("listitem");
      for (const name of ["unpack", "install", "start"]) {
        const step = steps.and(page.locator(`[data-step="${name}"]`));
        await expect(step).toContainText("succeeded");
        await expect(step).toContainText(/\d+\.\d s/);
      }
    });

    await test.step("every line carries its time", async () => {
      await expect(buildLog).toContainText("npm ci");
      await expect(buildLog.locator("time").first()).toHaveAttribute("datetime", ISO);
      await expect(runLine(`app starting ${suffix}`)).toBeVisible();
      await expect(runLine(`app starting ${suffix}`).locator("time")).toHaveAttribute("datetime", ISO);
    });

    await test.step("follow: a new line of the app shows without a reload; with follow off it waits", async () => {
      const follow = page.getByRole("checkbox", { name: "Follow" });
      await expect(follow).toBeChecked();
      await visit(`/alpha-${suffix}`);
      await expect(runLine(`served /alpha-${suffix}`)).toBeVisible({ timeout: 30_000 });
      await follow.uncheck();
      await visit(`/gamma-${suffix}`);
      // Once the app wrote it, the server has it (the search below reads it) while the page, not following, does not.
      await expect
        .poll(
          async () =>
            (await page.request.get(`/v1/workspaces/${ws}/deployments/${depOf(page.url())}/logs/download`)).text(),
          { timeout: 30_000 },
        )
        .toContain(`served /gamma-${suffix}`);
      await expect(runLine(`served /gamma-${suffix}`)).toHaveCount(0);
      await follow.check();
      await expect(runLine(`served /gamma-${suffix}`)).toBeVisible({ timeout: 30_000 });
    });

    await test.step("search keeps only the lines that contain the words; Clear brings the rest back", async () => {
      await visit(`/beta-${suffix}`);
      await expect(runLine(`served /beta-${suffix}`)).toBeVisible({ timeout: 30_000 });
      await page.getByLabel("Search the logs").fill(`alpha-${suffix}`);
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await expect(runLine(`served /beta-${suffix}`)).toHaveCount(0);
      await expect(runLine(`app starting ${suffix}`)).toHaveCount(0);
      await expect(runLog.locator("[data-log-line]")).toHaveCount(1);
      await expect(runLine(`served /alpha-${suffix}`)).toBeVisible();
      // No build line contains it: the build log says so rather than that none was kept.
      await expect(page.getByText(`No line contains “alpha-${suffix}”.`).first()).toBeVisible();
      await page.getByRole("button", { name: "Clear" }).click();
      await expect(runLine(`served /beta-${suffix}`)).toBeVisible();
      await expect(buildLog).toContainText("npm ci");
    });

    await test.step("download: the whole log as a file, steps, build and run lines", async () => {
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Download" }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^dep_[0-9a-z]{26}\.log$/);
      const text = readFileSync(await download.path(), "utf8");
      expect(text).toMatch(/# step install: succeeded in \d+ ms/);
      expect(text).toContain("npm ci");
      expect(text).toContain(`app starting ${suffix}`);
      for (const p of ["alpha", "gamma", "beta"]) expect(text).toContain(`served /${p}-${suffix}`);
    });
    await app.close();
  });
});

const depOf = (url: string) => /\/deployments\/(dep_[0-9a-z]{26})/.exec(url)![1]!;
