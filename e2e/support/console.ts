import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, type Page } from "@playwright/test";
import { bridgeToken as issueBridgeToken, type CapstanClient } from "@capstan/client";

/**
 * Shared steps of the console e2e specs. The bootstrap admin is set in
 * playwright.config.ts (BOOTSTRAP_ADMIN_*). Next.js renders its own (empty)
 * role="alert" route announcer: always filter alerts and statuses by text.
 */
export const ADMIN = { email: "admin@example.com", password: "e2e-admin-password" };

/** A suffix that keeps names unique across runs on one database. */
export const uniqueSuffix = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Sign in as the bootstrap admin (from a signed-out page) and create a workspace; returns its id. */
export async function signInAndCreateWorkspace(page: Page, name: string): Promise<string> {
  await page.goto("/console");
  await expect(page).toHaveURL(/\/signin/);
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/console$/);
  await expect(page.getByRole("heading", { level: 1, name: "Workspaces" })).toBeVisible();
  return createWorkspace(page, name);
}

/** From the workspaces page, create a workspace; returns its id. */
export async function createWorkspace(page: Page, name: string): Promise<string> {
  await page.getByLabel("Workspace name").fill(name);
  await page.getByRole("button", { name: "Create workspace" }).click();
  await expect(page).toHaveURL(/\/console\/w\/ws_[0-9a-z]{26}$/);
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  return /\/console\/w\/(ws_[0-9a-z]{26})$/.exec(page.url())![1]!;
}

export type TRepo = {
  dir: string;
  git: (...args: string[]) => void;
  /** Write capabilities.json with these entries (not committed). */
  contract: (capabilities: unknown[]) => void;
};

/**
 * A git repository in a new temp directory holding a small node app and a
 * capabilities.json, committed on `main`. The server accepts its file:// URL
 * with SOURCE_ALLOW_LOCAL=1 (playwright.config.ts). The caller removes `dir`.
 */
export function makeAppRepository(prefix: string, capabilities: unknown[]): TRepo {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const git = (...args: string[]) => {
    execFileSync("git", ["-C", dir, ...args], { stdio: "pipe" });
  };
  const contract = (caps: unknown[]) =>
    writeFileSync(path.join(dir, "capabilities.json"), JSON.stringify({ capabilities: caps }));
  git("init", "-q", "-b", "main");
  git("config", "user.email", "e2e@example.com");
  git("config", "user.name", "e2e");
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "e2e-app", engines: { node: ">=20" }, scripts: { start: "node server.js" } }),
  );
  writeFileSync(
    path.join(dir, "server.js"),
    'require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT || 3000);\n',
  );
  contract(capabilities);
  git("add", "-A");
  git("commit", "-qm", "main");
  return { dir, git, contract };
}

/** On a workspace's products page: create a product from a repository, wait for the freeze and open its revision. */
export async function createProductAndOpenRevision(page: Page, ws: string, repoDir: string): Promise<void> {
  await page.goto(`/console/w/${ws}/products`);
  await page.getByLabel("Repository URL").fill(`file://${repoDir}`);
  await page.getByRole("button", { name: "Create product" }).click();
  const freeze = page.getByRole("region", { name: "Source freeze" });
  await expect(freeze.getByText("Frozen", { exact: true })).toBeVisible({ timeout: 30_000 });
  await freeze.getByRole("link", { name: /^Review revision/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Revision" })).toBeVisible();
}

/** createProductAndOpenRevision, then confirm the detected descriptor as it is. */
export async function createConfirmedProduct(page: Page, ws: string, repoDir: string): Promise<void> {
  await createProductAndOpenRevision(page, ws, repoDir);
  await page.getByRole("button", { name: "Confirm descriptor" }).click();
  await expect(page.getByText("Descriptor confirmed")).toBeVisible();
}

/** A Bridge access token for a service identity (client_credentials), through the generated client (the `capstan` fixture). */
export async function bridgeToken(capstan: CapstanClient, client: { id: string; secret: string }): Promise<string> {
  return issueBridgeToken(capstan, client.id, client.secret);
}

/**
 * makeAppRepository with a deployable node app: no dependencies, a lockfile (so the
 * build plan installs with `npm ci`), and a server on $PORT answering `text` on every
 * path (the descriptor's default health path is `/`).
 */
export function makeDeployableAppRepository(prefix: string, text: string): TRepo {
  const repo = makeAppRepository(prefix, []);
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
  writeFileSync(
    path.join(repo.dir, "server.js"),
    `require("http").createServer((q, s) => { s.setHeader("content-type", "text/plain"); s.end(${JSON.stringify(text)}); }).listen(Number(process.env.PORT));\n`,
  );
  repo.git("add", "-A");
  repo.git("commit", "-qm", "deployable app");
  return repo;
}

/** On a confirmed revision's page: Deploy to `environment`, and wait for the new deployment's page; returns its id. */
export async function deployRevision(
  page: Page,
  environment: "Preview" | "Staging" | "Production" = "Preview",
  slot?: string,
): Promise<string> {
  await page.getByRole("button", { name: "Deploy", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Deploy this revision" });
  await dialog.getByLabel("Environment").selectOption({ label: environment });
  if (slot) await dialog.getByLabel("Slot (optional)").fill(slot);
  await dialog.getByRole("button", { name: "Deploy", exact: true }).click();
  await expect(page).toHaveURL(/\/deployments\/dep_[0-9a-z]{26}$/);
  await expect(page.getByRole("heading", { level: 1, name: "Deployment" })).toBeVisible();
  return /\/deployments\/(dep_[0-9a-z]{26})$/.exec(page.url())![1]!;
}

/**
 * How long a deployment may take to become active in the browser: install, build, and a start under gVisor, which on
 * a loaded 2-core CI machine takes tens of seconds (docs/decisions.md "gVisor start on a busy host").
 */
export const ACTIVE_WITHIN_MS = 150_000;

/** createConfirmedProduct, deployRevision to preview, then wait on the deployment's page until it is active; returns its id. */
export async function deployToPreviewAndWaitActive(page: Page, ws: string, repoDir: string): Promise<string> {
  await createConfirmedProduct(page, ws, repoDir);
  const dep = await deployRevision(page, "Preview");
  await expect(page.getByText("Active", { exact: true }).first()).toBeVisible({ timeout: ACTIVE_WITHIN_MS });
  return dep;
}

/** On a deployment's page: open its surface's page, then Open session; waits for the session's page and returns its id. */
export async function openSessionFromDeployment(page: Page): Promise<string> {
  await page.getByRole("link", { name: "Sessions and access" }).click();
  await expect(page).toHaveURL(/\/surfaces\/srf_[0-9a-z]{26}$/);
  await expect(page.getByRole("heading", { level: 1, name: "Surface" })).toBeVisible();
  await page.getByRole("button", { name: "Open session" }).click();
  await expect(page).toHaveURL(/\/sessions\/ses_[0-9a-z]{26}$/);
  await expect(page.getByRole("heading", { level: 1, name: "Session" })).toBeVisible();
  return /\/sessions\/(ses_[0-9a-z]{26})$/.exec(page.url())![1]!;
}

/** On a session's page: send a request through "Send a request" and wait until it is answered. */
export async function sendSessionRequest(
  page: Page,
  request: { method: string; path: string; body?: string },
): Promise<void> {
  await page.getByLabel("Method").selectOption(request.method);
  await page.getByLabel("Path").fill(request.path);
  if (request.body !== undefined) await page.getByLabel("Body (optional)").fill(request.body);
  await page.getByRole("button", { name: "Send request" }).click();
  await expect(page.getByRole("button", { name: "Send request" })).toBeEnabled({ timeout: 30_000 });
}
