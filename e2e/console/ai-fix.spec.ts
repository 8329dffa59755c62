import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "../support/fixtures";
import { startOpenAiServer, type TOpenAiServer } from "../../test/support/openai-server";
import {
  createConfirmedProduct,
  makeAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
  type TRepo,
} from "../support/console";
import { axeFindings } from "../support/quality";

/**
 * The AI-generated fix in the console (issue #32 item 6): a revision whose app
 * answers 500 fails its evaluation; with an ai.generate binding to an
 * OpenAI-compatible server on 127.0.0.1, "Ask AI" on a finding first gets
 * garbage (a failed fix whose finding says the answer is no diff, nothing to
 * approve), then a diff that applies: the revision's Fixes card shows the
 * proposal with its diff, marked AI-generated, with Approve and Reject;
 * approving it freezes a new revision.
 */
const suffix = uniqueSuffix();
const API_KEY = `sk-e2e-fix-${suffix}`;
const SERVER = [
  'const http = require("http");',
  "http.createServer((q, s) => {",
  "  s.statusCode = 500;",
  '  s.end("broken");',
  "}).listen(Number(process.env.PORT));",
  "",
].join("\n");
const DIFF = [
  "--- a/server.js",
  "+++ b/server.js",
  "@@ -1,5 +1,5 @@",
  ' const http = require("http");',
  " http.createServer((q, s) => {",
  "-  s.statusCode = 500;",
  '-  s.end("broken");',
  "+  s.statusCode = 200;",
  '+  s.end("fixed by the model");',
  " }).listen(Number(process.env.PORT));",
  "",
].join("\n");

let repo: TRepo | undefined;
let model: TOpenAiServer | undefined;
test.beforeAll(async () => {
  repo = makeAppRepository("capstan-e2e-ai-fix-", []);
  writeFileSync(
    path.join(repo.dir, "package.json"),
    JSON.stringify({ name: "app", version: "1.0.0", scripts: { start: "node server.js" } }),
  );
  writeFileSync(
    path.join(repo.dir, "package-lock.json"),
    JSON.stringify({
      name: "app",
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: { "": { name: "app", version: "1.0.0" } },
    }),
  );
  writeFileSync(path.join(repo.dir, "server.js"), SERVER);
  repo.git("add", "-A");
  repo.git("commit", "-qm", "an app that answers 500");
  model = await startOpenAiServer(API_KEY, { text: "Have you tried turning it off and on again?", tokens: 40 });
});
test.afterAll(async () => {
  await model?.close();
  if (repo) rmSync(repo.dir, { recursive: true, force: true });
});

test("console AI fix: a failed evaluation asks the workspace's model; garbage is a failed fix, a diff a proposal to approve", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const ws = await signInAndCreateWorkspace(page, `E2E AI fix ${suffix}`);

  await test.step("an ai.generate credential and a binding to the loopback model", async () => {
    await page.goto(`/console/w/${ws}/credentials`);
    await page.getByLabel("Provider", { exact: true }).fill("openai");
    await page.getByLabel("Secret", { exact: true }).fill(API_KEY);
    await page.getByRole("button", { name: "Save credential" }).click();
    const saved = page.getByRole("status").filter({ hasText: "will not be shown again" });
    await expect(saved).toContainText(/Credential cred_[0-9a-z]{26} saved/);
    const credId = /cred_[0-9a-z]{26}/.exec((await saved.textContent()) ?? "")![0];
    await page.goto(`/console/w/${ws}/bindings`);
    await page.getByLabel("Credential", { exact: true }).selectOption(credId);
    await page.getByLabel("Provider model for text").fill("fixer-1");
    await page.getByLabel("Base URL").fill(model!.baseUrl);
    await page.getByRole("button", { name: "Create binding" }).click();
    await expect(page.getByRole("status").filter({ hasText: /Binding bind_[0-9a-z]{26} is ready/ })).toBeVisible();
  });

  await test.step("the revision's evaluation fails: its health check answers 500", async () => {
    await createConfirmedProduct(page, ws, repo!.dir);
    await page.getByRole("button", { name: "Evaluate", exact: true }).click();
    const latest = page.getByRole("region", { name: "Latest evaluation" });
    await expect(latest.getByText("Failed", { exact: true }).first()).toBeVisible({ timeout: 120_000 });
    await expect(latest.getByRole("list", { name: "Findings" })).toContainText("health_check_failed");
  });

  const fixes = page.getByRole("region", { name: /^Fix fix_/ });
  await test.step("garbage from the model: a failed fix whose finding says so, nothing to approve", async () => {
    await page.getByRole("button", { name: "Ask AI to fix health_check_failed" }).click();
    await expect(page.getByRole("status").filter({ hasText: "The model gave no usable patch" })).toBeVisible({
      timeout: 60_000,
    });
    const failed = fixes.first();
    await expect(failed.getByText("Failed", { exact: true })).toBeVisible();
    await expect(failed.getByRole("list", { name: /^Why fix_/ })).toContainText("ai_answer_not_a_diff");
    await expect(failed.getByRole("button", { name: "Approve fix" })).toHaveCount(0);
    await expect(failed.getByRole("link", { name: /^cap_[0-9a-z]{26}$/ })).toBeVisible();
  });

  await test.step("a diff from the model: a proposal with its diff, marked AI-generated, with Approve and Reject", async () => {
    model!.behave({ mode: "ok", text: DIFF, tokens: 120 });
    await page.getByRole("button", { name: "Ask AI to fix health_check_failed" }).click();
    await expect(page.getByRole("status").filter({ hasText: "The model proposed a patch" })).toBeVisible({
      timeout: 60_000,
    });
    await expect(fixes).toHaveCount(2);
    const proposal = fixes.first();
    await expect(proposal.getByText("Proposed", { exact: true })).toBeVisible();
    await expect(proposal.getByText("AI-generated: review the diff")).toBeVisible();
    const diff = proposal.getByLabel(/^Change proposed by fix_/);
    await expect(diff).toContainText("-  s.statusCode = 500;");
    await expect(diff).toContainText("+  s.statusCode = 200;");
    await expect(proposal.getByRole("button", { name: "Reject fix" })).toBeDisabled();
    expect(await axeFindings(page)).toEqual([]);
    await proposal.getByRole("button", { name: "Approve fix" }).click();
    await expect(proposal.getByText("Approved", { exact: true })).toBeVisible();
    await proposal.getByRole("link", { name: /^rev_[0-9a-z]{26}$/ }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Revision" })).toBeVisible();
  });
});
