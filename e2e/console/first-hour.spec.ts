import { mkdirSync, rmSync } from "node:fs";
import { type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { makeAppRepository, signInAndCreateWorkspace, uniqueSuffix } from "../support/console";
import { axeFindings, offscreen, SCREENSHOTS, settle } from "../support/quality";
import { startOpenAiServer, type TOpenAiServer } from "../../test/support/openai-server";
import { invitationLinkOf, startSmtpSink, type TSmtpSink } from "../../test/support/smtp-sink";

/**
 * Issue #21 item 6, "Done when": the first hour of a new owner, at 1440 and
 * at 390 px. The owner signs in and creates a workspace, then follows the
 * overview's onboarding checklist link by link: a product from a git
 * repository, its descriptor and contract confirmed, an ai.generate
 * credential and a binding to an OpenAI-compatible server on loopback, a
 * service identity (its secret read once). The checklist's copy-paste
 * commands are then run as fetches (the secret put where the placeholder
 * is) and the call completes; the checklist disappears and the overview's
 * usage chart counts the call. A member is invited
 * by email and accepts; the owner sees the call in the invocations list
 * and opens its drill-down;
 * settings rename the workspace and make the member an owner; the member saw
 * settings read-only before. The checklist is dismissed and brought back once.
 * Every page visited is checked with axe (no serious or critical finding)
 * and, at 390 px, for controls out of reach; screenshots of the main pages
 * go to test-results/screenshots/first-hour-<page>-<width>.png (README).
 */
const suffix = uniqueSuffix();
const API_KEY = `sk-first-hour-${suffix}`;
const ANSWER = `Hello from the first hour ${suffix}`;
const MODEL = "gpt-first-hour";
const MAX_TOKENS = 64;
const AI = {
  id: "ai.generate",
  required: true,
  actions: ["generate"],
  scope: { models: ["text"], max_tokens_per_call: MAX_TOKENS },
  credential_owner: "workspace",
  provider: { allow: ["openai"], fallback: "none" },
};

let repoDir = "";
let provider: TOpenAiServer | undefined;
let sink: TSmtpSink;
test.beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  repoDir = makeAppRepository("capstan-e2e-first-hour-", [AI]).dir;
  provider = await startOpenAiServer(API_KEY, { text: ANSWER });
  sink = await startSmtpSink(Number(process.env.E2E_SMTP_PORT));
});
test.afterAll(async () => {
  await provider?.close();
  await sink?.stop();
  if (repoDir) rmSync(repoDir, { recursive: true, force: true });
});

/** Collects axe findings (and, on a phone, controls out of reach) of every page visited; screenshots the main ones. */
function pageChecks(width: number) {
  const problems: string[] = [];
  return {
    problems,
    check: async (page: Page, name: string, opts: { screenshot?: boolean } = {}) => {
      await settle(page);
      for (const f of await axeFindings(page)) problems.push(`${width} ${name}: axe ${f}`);
      if (width < 640) for (const o of await offscreen(page)) problems.push(`${width} ${name}: ${o}`);
      if (opts.screenshot !== false)
        await page.screenshot({ path: `${SCREENSHOTS}/first-hour-${name}-${width}.png`, fullPage: true });
    },
  };
}

const checklist = (page: Page) => page.getByRole("region", { name: "Get started" });
const step = (page: Page, n: number) =>
  checklist(page)
    .getByRole("listitem")
    .nth(n - 1);

async function openOverview(page: Page, ws: string) {
  await page.goto(`/console/w/${ws}`);
  await expect(checklist(page)).toBeVisible();
}

async function walk(page: Page, browser: Browser, request: APIRequestContext, width: number, height: number) {
  test.setTimeout(300_000);
  await page.setViewportSize({ width, height });
  const { problems, check } = pageChecks(width);
  const server = provider!;
  const workspaceName = `E2E first hour ${width} ${suffix}`;
  const identity = `first-hour-${width}-${suffix}`;
  const invitee = {
    email: `first-hour-${width}-${suffix}@example.com`,
    name: `Member ${width} ${suffix}`,
    password: "first-hour-password-123",
  };
  let ws = "";

  await test.step("a new owner signs in, creates a workspace and sees the checklist with nothing done", async () => {
    ws = await signInAndCreateWorkspace(page, workspaceName);
    await expect(checklist(page)).toBeVisible();
    await expect(checklist(page)).toContainText("0 of 5 steps done");
    await expect(checklist(page).getByText("Done", { exact: true })).toHaveCount(0);
    await check(page, "overview-new");
  });

  await test.step("the checklist can be dismissed (it stays hidden after a reload) and brought back from Settings", async () => {
    await checklist(page).getByRole("button", { name: "Dismiss checklist" }).click();
    await expect(checklist(page)).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: workspaceName })).toBeVisible();
    await settle(page);
    await expect(checklist(page)).toHaveCount(0);
    await page.goto(`/console/w/${ws}/settings`);
    await page.getByRole("button", { name: "Show the checklist on the overview again" }).click();
    await expect(page.getByRole("button", { name: "Show the checklist on the overview again" })).toHaveCount(0);
    await openOverview(page, ws);
  });

  await test.step("step 1: add a product, from the checklist's link", async () => {
    await step(page, 1).getByRole("link", { name: "Go to products" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Products" })).toBeVisible();
    await check(page, "products");
    await page.getByLabel("Repository URL").fill(`file://${repoDir}`);
    await page.getByLabel("Name (optional)").fill(`Shop ${width}`);
    await page.getByRole("button", { name: "Create product" }).click();
    const freeze = page.getByRole("region", { name: "Source freeze" });
    await expect(freeze.getByText("Frozen", { exact: true })).toBeVisible({ timeout: 30_000 });
  });

  await test.step("step 2: confirm the descriptor and contract, from the checklist's link to the revision", async () => {
    await openOverview(page, ws);
    await expect(step(page, 1)).toContainText("Done");
    await step(page, 2).getByRole("link", { name: "Review the revision" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Revision" })).toBeVisible();
    await check(page, "revision");
    await page.getByRole("button", { name: "Confirm descriptor" }).click();
    await expect(page.getByText("Descriptor confirmed")).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: "ai.generate" }).first()).toBeVisible();
  });

  let credId = "";
  await test.step("step 3: add the credential, then the binding, each from the checklist's link", async () => {
    await openOverview(page, ws);
    await expect(checklist(page)).toContainText("2 of 5 steps done");
    await step(page, 3).getByRole("link", { name: "Add a credential or binding" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Credentials" })).toBeVisible();
    await check(page, "credentials");
    await page.getByLabel("Provider", { exact: true }).fill("openai");
    await expect(page.getByLabel("Capability", { exact: true })).toHaveValue("ai.generate");
    await page.getByLabel("Secret", { exact: true }).fill(API_KEY);
    await page.getByRole("button", { name: "Save credential" }).click();
    const saved = page.getByRole("status").filter({ hasText: "will not be shown again" });
    await expect(saved).toContainText(/Credential cred_[0-9a-z]{26} saved/);
    credId = /cred_[0-9a-z]{26}/.exec((await saved.textContent()) ?? "")![0];

    await openOverview(page, ws);
    await expect(step(page, 3)).not.toContainText("Done"); // a credential without a binding is half the step
    await step(page, 3).getByRole("link", { name: "Add a credential or binding" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Provider bindings" })).toBeVisible();
    await page.getByLabel("Credential", { exact: true }).selectOption(credId);
    await page.getByLabel("Max tokens per call").fill(String(MAX_TOKENS));
    await page.getByLabel("Provider model for text").fill(MODEL);
    await page.getByLabel("Base URL").fill(server.baseUrl);
    await page.getByRole("button", { name: "Create binding" }).click();
    await expect(page.getByRole("status").filter({ hasText: /Binding bind_[0-9a-z]{26} is ready/ })).toBeVisible();
    await check(page, "bindings");
  });

  const client = { id: "", secret: "" };
  await test.step("step 4: create a service identity and copy its secret, shown once", async () => {
    await openOverview(page, ws);
    await expect(checklist(page)).toContainText("3 of 5 steps done");
    await step(page, 4).getByRole("link", { name: "Go to service identities" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Service identities" })).toBeVisible();
    await page.getByLabel("Name", { exact: true }).fill(identity);
    await page.getByLabel("Product", { exact: true }).selectOption({ index: 1 });
    await page.getByRole("button", { name: "Create service identity" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Service identity "${identity}" created` })).toBeVisible();
    client.id = await page.getByLabel("Client ID", { exact: true }).inputValue();
    client.secret = await page.getByLabel("Client secret", { exact: true }).inputValue();
    expect(client.secret).toMatch(/^cssec_/);
    await check(page, "service-identity-secret", { screenshot: false });
    await page.getByRole("button", { name: "Done" }).click();
    await check(page, "service-identities");
  });

  await test.step("step 5: the checklist's commands, run with the real secret, make a call that completes", async () => {
    await openOverview(page, ws);
    await expect(checklist(page)).toContainText("4 of 5 steps done");
    const commands = checklist(page).getByLabel("First Bridge call commands");
    await expect(commands).toBeVisible();
    await expect(checklist(page).getByRole("button", { name: "Copy commands" })).toBeVisible();
    await check(page, "overview-first-call");
    const curl = (await commands.textContent()) ?? "";
    const origin = new URL(page.url()).origin;
    // Built from the public URL and the workspace's real ids; the secret is a placeholder, never the real one.
    expect(curl).toContain(`${origin}/v1/oauth/token`);
    expect(curl).toContain(`client_id=${client.id}`);
    expect(curl).toContain("<paste the client secret");
    expect(curl).not.toContain(client.secret);

    const tokenUrl = /TOKEN=\$\(curl -sS (\S+) \\/.exec(curl)![1]!;
    const clientId = /client_id=(svc_[0-9a-z]{26})/.exec(curl)![1]!;
    const callUrl = /curl -sS -X POST (\S+) \\/.exec(curl)![1]!;
    const body = JSON.parse(/-d '(\{.*\})'\s*$/.exec(curl)![1]!) as unknown;
    expect(callUrl).toBe(`${origin}/v1/capabilities/ai.generate/generate`);

    // The curl's equivalent: the form-encoded token request, then the Bridge call with the bearer token.
    const token = await request.post(tokenUrl, {
      form: { grant_type: "client_credentials", client_id: clientId, client_secret: client.secret },
    });
    expect(token.status(), await token.text()).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    const call = await request.post(callUrl, { headers: { authorization: `Bearer ${access_token}` }, data: body });
    expect(call.status(), await call.text()).toBe(200);
    expect(await call.json()).toMatchObject({
      capability: "ai.generate",
      outcome: "completed",
      output: { text: ANSWER },
    });

    // Complete: the checklist is gone from the overview.
    await expect(async () => {
      await page.goto(`/console/w/${ws}`);
      await settle(page);
      await expect(page.getByRole("heading", { level: 1, name: workspaceName })).toBeVisible();
      await expect(checklist(page)).toHaveCount(0, { timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
    await check(page, "overview");
  });

  await test.step("the call in the overview's usage chart: today's UTC day counts one ai.generate call", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const usage = page.getByRole("table", { name: "Bridge calls per UTC day by capability, last 30 days" });
    await expect(async () => {
      await page.goto(`/console/w/${ws}`);
      await expect(usage.getByRole("row", { name: new RegExp(`^${today}`) })).toBeAttached({ timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await expect(usage.getByRole("columnheader", { name: "ai.generate" })).toBeAttached();
    await expect(usage.getByRole("row", { name: new RegExp(`^${today}`) }).getByRole("cell")).toHaveText(["1", "1"]);
    await expect(page.getByText("1 call from", { exact: false })).toBeVisible();
    await check(page, "overview-chart", { screenshot: false });
  });

  await test.step("the owner invites a member, who accepts from the emailed link and lands in the workspace", async () => {
    await page.goto(`/console/w/${ws}/members`);
    await expect(page.getByRole("heading", { level: 1, name: "Members" })).toBeVisible();
    await page.getByLabel("Email address to invite").fill(invitee.email);
    await page.getByLabel("Role to grant").selectOption("developer");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Invitation sent to ${invitee.email}` })).toBeVisible();
    await check(page, "members");

    const mail = await sink.waitFor(invitee.email);
    expect(mail.subject).toContain(workspaceName);
    const fresh = await browser.newContext({ viewport: { width, height } });
    const p = await fresh.newPage();
    await p.goto(new URL(invitationLinkOf(mail)).pathname);
    await expect(p.getByRole("heading", { level: 1, name: `Join ${workspaceName} on Capstan` })).toBeVisible();
    for (const f of await axeFindings(p)) problems.push(`${width} invitation: axe ${f}`);
    await p.screenshot({ path: `${SCREENSHOTS}/first-hour-invitation-${width}.png`, fullPage: true });
    await p.getByLabel("Your name").fill(invitee.name);
    await p.getByLabel("Password").fill(invitee.password);
    await p.getByRole("button", { name: "Create account and join" }).click();
    await expect(p).toHaveURL(new RegExp(`/console/w/${ws}$`));
    await expect(p.getByRole("heading", { level: 1, name: workspaceName })).toBeVisible();
    for (const f of await axeFindings(p)) problems.push(`${width} member overview: axe ${f}`);

    // The member sees settings read-only: no rename, no transfer.
    await p.goto(`/console/w/${ws}/settings`);
    await expect(p.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
    await expect(p.getByText("you see them read-only")).toBeVisible();
    await expect(p.getByRole("button", { name: /^Rename workspace/ })).toHaveCount(0);
    await expect(p.getByText("Only an owner can grant the owner role. You are developer.")).toBeVisible();
    for (const f of await axeFindings(p)) problems.push(`${width} member settings: axe ${f}`);
    await fresh.close();

    await page.reload();
    await expect(page.getByRole("row").filter({ hasText: invitee.email })).toContainText(invitee.name);
  });

  await test.step("the owner sees the call in the invocations list", async () => {
    await page.goto(`/console/w/${ws}/invocations`);
    await expect(page.getByRole("heading", { level: 1, name: "Capability invocations" })).toBeVisible();
    const rows = page.getByRole("row").filter({ has: page.getByRole("cell") });
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText("ai.generate generate");
    await expect(rows.first().getByText("completed", { exact: true })).toBeVisible();
    await check(page, "invocations");
  });

  await test.step("the call's drill-down: outcome, usage, checks and the caller by name", async () => {
    await page
      .getByRole("row")
      .filter({ has: page.getByRole("cell") })
      .getByRole("link", { name: /open invocation cap_/ })
      .click();
    await expect(page).toHaveURL(new RegExp(`/console/w/${ws}/invocations/cap_[0-9a-z]{26}$`));
    await expect(page.getByRole("heading", { level: 1, name: "Invocation" })).toBeVisible();
    await expect(page.getByRole("list", { name: "Checks" }).getByRole("listitem").first()).toBeVisible();
    await expect(page.getByText(`${MAX_TOKENS} tokens`, { exact: true })).toBeVisible();
    await expect(page.getByText(identity, { exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: `Shop ${width}`, exact: true })).toBeVisible();
    await check(page, "invocation");
  });

  await test.step("settings: the owner renames the workspace; plan, budgets and the danger zone are there", async () => {
    await page.goto(`/console/w/${ws}/settings`);
    await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
    await expect(page.getByRole("heading", { name: /^Budgets/ })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Plan", exact: true })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Danger zone" })).toBeVisible();
    await expect(page.getByLabel("New owner")).toBeVisible();
    await check(page, "settings");
    await page.getByRole("button", { name: `Rename workspace ${workspaceName}` }).click();
    const dialog = page.getByRole("dialog", { name: "Rename workspace" });
    await dialog.getByLabel("Name").fill(`${workspaceName} renamed`);
    await dialog.getByRole("button", { name: "Save name" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText(`Settings of ${workspaceName} renamed.`)).toBeVisible();

    // Danger zone: hand the owner role to the new member (the existing member role change).
    await page.getByLabel("New owner").selectOption({ label: `${invitee.name} (${invitee.email}), developer` });
    await page.getByRole("button", { name: "Make owner" }).click();
    const confirm = page.getByRole("dialog", { name: "Make this member an owner?" });
    await confirm.getByRole("button", { name: "Make owner" }).click();
    await expect(page.getByText(`${invitee.email} is now an owner of this workspace.`)).toBeVisible();
    await page.goto(`/console/w/${ws}/members`);
    await expect(page.getByLabel(`Role for ${invitee.email}`)).toHaveValue("owner");
  });

  expect(
    problems,
    "serious or critical axe findings, or controls out of reach on a phone, on the pages of the first hour",
  ).toEqual([]);
}

for (const [width, height] of [
  [1440, 900],
  [390, 844],
] as const) {
  test(`first hour of a new owner at ${width} px: checklist to a first Bridge call, an invited member, the call charted, listed and opened`, async ({
    page,
    browser,
    request,
  }) => {
    await walk(page, browser, request, width, height);
  });
}
