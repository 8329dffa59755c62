import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "../support/fixtures";
import {
  createConfirmedProduct,
  makeDeployableAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
  type TRepo,
} from "../support/console";

/**
 * Deploy on push (issue #37 item 3), the way an owner wires it: the product
 * tracks a bare repository on local disk (SOURCE_ALLOW_LOCAL=1); its first
 * revision is confirmed by hand; the owner sets up deploy on push in the
 * console and installs the URL and the secret (shown once) as the
 * repository's post-receive hook, which sends what GitHub sends (a push
 * event signed with X-Hub-Signature-256). A commit that changes only code,
 * pushed with `git push`, is frozen as a new revision and deployed to
 * preview: the console shows the push, what it led to, and the deployment
 * active, serving the new code.
 */
const suffix = uniqueSuffix();
const BEFORE = `before the push ${suffix}`;
const AFTER = `after the push ${suffix}`;

/** A post-receive hook (node, run by git on the server side of the push) that posts GitHub's push event, signed. */
function postReceiveHook(url: string, secret: string): string {
  return `#!${process.execPath}
const { createHmac, randomUUID } = require("node:crypto");
const url = ${JSON.stringify(url)};
const secret = ${JSON.stringify(secret)};
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", async () => {
  for (const line of input.trim().split("\\n")) {
    const [before, after, ref] = line.split(" ");
    const body = JSON.stringify({ ref, before, after, repository: { full_name: "e2e/app" }, head_commit: { id: after } });
    const signature = "sha256=" + createHmac("sha256", secret).update(body).digest("hex");
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "push",
        "x-github-delivery": randomUUID(),
        "x-hub-signature-256": signature,
      },
      body,
    });
    const out = await res.json();
    console.log("capstan push hook: " + res.status + " " + out.status + " " + (out.commit_sha ?? ""));
  }
});
`;
}

test.describe("deploy on push", () => {
  let work: TRepo;
  let bareDir = "";
  test.beforeAll(() => {
    work = makeDeployableAppRepository("capstan-e2e-push-work-", BEFORE);
    bareDir = mkdtempSync(path.join(os.tmpdir(), "capstan-e2e-push-origin-"));
    execFileSync("git", ["clone", "-q", "--bare", work.dir, bareDir], { stdio: "pipe" });
    work.git("remote", "add", "origin", bareDir);
  });
  test.afterAll(() => {
    for (const dir of [work?.dir, bareDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("a commit pushed to the repository fires its webhook: a new revision, deployed to preview, shown in the console", async ({
    page,
  }) => {
    test.setTimeout(300_000);
    const ws = await signInAndCreateWorkspace(page, `E2E push ${suffix}`);
    let firstRevision = "";
    let productUrl = "";

    await test.step("the product tracks the bare repository; its first revision is confirmed by hand", async () => {
      await createConfirmedProduct(page, ws, bareDir);
      firstRevision = /\/revisions\/(rev_[0-9a-z]{26})$/.exec(page.url())![1]!;
      productUrl = (await page.getByRole("link", { name: "Open product" }).getAttribute("href"))!;
    });

    let hookUrl = "";
    await test.step("set up deploy on push on the product page: the URL, and the secret once", async () => {
      await page.goto(productUrl);
      await page.getByRole("button", { name: "Set up deploy on push" }).click();
      const secret = await page.getByLabel("Secret", { exact: true }).inputValue();
      expect(secret).toMatch(/^cph_[0-9a-f]{48}$/);
      hookUrl = (await page.getByTestId("push-hook-url").textContent())!.trim();
      const prod = /\/products\/(prod_[0-9a-z]{26})$/.exec(productUrl)![1]!;
      expect(hookUrl).toMatch(new RegExp(`^https?://[^/]+/v1/hooks/products/${prod}/push$`));
      await expect(page.getByText("No push received yet.")).toBeVisible();
      const hook = path.join(bareDir, "hooks", "post-receive");
      writeFileSync(hook, postReceiveHook(hookUrl, secret));
      chmodSync(hook, 0o755);
    });

    let sha = "";
    await test.step("commit a code-only change and git push: the hook's delivery is accepted", async () => {
      writeFileSync(
        path.join(work.dir, "server.js"),
        `require("http").createServer((q, s) => { s.setHeader("content-type", "text/plain"); s.end(${JSON.stringify(AFTER)}); }).listen(Number(process.env.PORT));\n`,
      );
      work.git("commit", "-qam", "a new greeting");
      sha = execFileSync("git", ["-C", work.dir, "rev-parse", "HEAD"]).toString().trim();
      const pushed = spawnSync("git", ["-C", work.dir, "push", "origin", "main"], { encoding: "utf8" });
      expect(pushed.status, pushed.stderr).toBe(0);
      // git relays what the hook printed as "remote: …".
      expect(pushed.stderr).toContain(`capstan push hook: 202 freezing ${sha}`);
    });

    let dep = "";
    await test.step("the console shows the push: frozen, deployed, with a link to its deployment", async () => {
      const pushes = page.getByRole("table", { name: "Recent pushes to this product's hook" });
      const row = pushes.getByRole("row").filter({ hasText: sha.slice(0, 7) });
      // The card polls its pushes every 10 s while none is freezing.
      await expect(row).toContainText("refs/heads/main", { timeout: 30_000 });
      await expect(row).toContainText("Deployed", { timeout: 180_000 });
      const link = row.getByRole("link");
      dep = /\/deployments\/(dep_[0-9a-z]{26})$/.exec((await link.getAttribute("href"))!)![1]!;
      await link.click();
      await expect(page).toHaveURL(new RegExp(`/deployments/${dep}$`));
    });

    await test.step("the deployment is a preview of a new revision, and becomes active serving the pushed code", async () => {
      const header = page.getByRole("region", { name: "Deployment summary" });
      await expect(header).toContainText("Preview");
      await expect(header.getByText("Active", { exact: true }).first()).toBeVisible({ timeout: 120_000 });
      const revision = header.locator("a[href*='/revisions/rev_']").first();
      const href = (await revision.getAttribute("href"))!;
      expect(href).toMatch(/\/revisions\/rev_[0-9a-z]{26}$/);
      expect(href).not.toContain(firstRevision);
      const visit = header.getByRole("link", { name: /^Visit http:\/\/srf-[0-9a-z]{26}\.localhost:\d+\// });
      const url = (await visit.getAttribute("href"))!;
      await page.goto(url);
      await expect(page.getByText(AFTER)).toBeVisible();
    });

    await test.step("the product page lists it live in preview and among its latest deployments", async () => {
      await page.goto(productUrl);
      const environments = page.getByRole("table", { name: "Live deployments of this product, by environment" });
      await expect(environments.getByRole("row").filter({ hasText: "Preview" })).toBeVisible();
      await expect(environments.locator(`a[href$='/deployments/${dep}']`)).toBeVisible();
      const latest = page.getByRole("table", { name: "Latest deployments" });
      await expect(latest.locator(`a[href$='/deployments/${dep}']`)).toBeVisible();
    });
  });
});
