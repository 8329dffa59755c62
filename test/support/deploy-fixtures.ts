import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { processPendingFreezes } from "@/server/domain/source/freeze.service";
import { db } from "@/server/platform/db/client";
import { api, type TApiResult, type TTestUser } from "./api";
import { kvCapability, type TCapability } from "./bridge-fixtures";
import { until } from "./procs";

/**
 * Deployment fixtures: a real small Node app (test/fixtures/hosted-app.js)
 * in a local git repository, frozen through the real intake and confirmed
 * through the REST API, then deployed through the REST API and applied by
 * the real deploy worker with the real local runner.
 */
const root = mkdtempSync(path.join(os.tmpdir(), "capstan-deploy-repos-"));
let n = 0;
const APP = readFileSync(path.join(import.meta.dirname, "..", "fixtures", "hosted-app.js"), "utf8");

function git(cwd: string, ...args: string[]): void {
  execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args],
    { cwd },
  );
}

export type TAppRepo = {
  scripts?: Record<string, string>;
  capabilities?: TCapability[];
  files?: Record<string, string>;
};

export function makeAppRepo(opts: TAppRepo = {}): string {
  const dir = path.join(root, `app-${++n}`);
  mkdirSync(dir);
  git(dir, "init", "-q");
  const files: Record<string, string> = {
    "package.json": JSON.stringify({
      name: "app",
      version: "1.0.0",
      scripts: { start: "node server.js", ...opts.scripts },
    }),
    "package-lock.json": JSON.stringify({
      name: "app",
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: { "": { name: "app", version: "1.0.0" } },
    }),
    "server.js": APP,
    "capabilities.json": JSON.stringify({ capabilities: opts.capabilities ?? [kvCapability()] }),
    ...opts.files,
  };
  for (const [rel, content] of Object.entries(files)) writeFileSync(path.join(dir, rel), content);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "app");
  return `file://${dir}`;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function must<T = any>(r: TApiResult<T>, status: number, what: string): T {
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status}: ${r.text}`);
  return r.json;
}

/** Intake + freeze; returns the product and its (detected, unconfirmed) revision. */
export async function freezeApp(
  owner: TTestUser,
  ws: string,
  repo: TAppRepo = {},
): Promise<{ productId: string; revisionId: string }> {
  const accepted = must(
    await api("POST", `/v1/workspaces/${ws}/products`, {
      token: owner.token,
      body: { repo_url: makeAppRepo(repo), ref: "main", auth: { kind: "none" } },
    }),
    202,
    "intake",
  );
  let freeze: { status: string; revision?: { id: string } } = { status: "pending" };
  for (let i = 0; i < 30 && freeze.status === "pending"; i++) {
    await processPendingFreezes(10);
    freeze = must(
      await api("GET", `/v1/workspaces/${ws}/source-freezes/${accepted.source_freeze_id}`, { token: owner.token }),
      200,
      "freeze",
    );
  }
  if (freeze.status !== "frozen" || !freeze.revision) throw new Error(`freeze failed: ${JSON.stringify(freeze)}`);
  return { productId: accepted.product_id, revisionId: freeze.revision.id };
}

/** Intake, freeze and descriptor confirmation (with optional edits). */
export async function confirmedApp(
  owner: TTestUser,
  ws: string,
  repo: TAppRepo = {},
  edits?: Record<string, unknown>,
): Promise<{ productId: string; revisionId: string }> {
  const app = await freezeApp(owner, ws, repo);
  must(
    await api("POST", `/v1/workspaces/${ws}/products/${app.productId}/revisions/${app.revisionId}/descriptor:confirm`, {
      token: owner.token,
      body: edits ? { edits } : {},
    }),
    200,
    "confirm",
  );
  return app;
}

/** The spec's health path is "/" by default; the fixture's is /health. */
export const HEALTH_EDIT = { build_plan: { health: { path: "/health" } } };

/**
 * Waits while a deployment is being applied by a worker run of this process: two deploys at once (Promise.all in a
 * test) may see the first worker run claim both, and the second run then claims nothing and would read its deployment
 * while the first run is still applying it. A deployment no host took (no capacity) is returned as it is.
 */
async function settledApply(id: string, timeoutMs = 240_000): Promise<void> {
  await until(
    `deployment ${id} to leave its apply`,
    async () => {
      // platform-scoped: a test fixture reads the claim of the deployment it just created.
      const row = await db().deployment.findUnique({ where: { id }, select: { status: true, lockedUntil: true } });
      const claimed = row?.status === "planned" && !!row.lockedUntil && row.lockedUntil.getTime() > Date.now();
      return row?.status !== "applying" && !claimed;
    },
    timeoutMs,
    100,
  );
}

/** POST a deployment and run the deploy worker until it has been applied. */
export async function deploy(
  owner: TTestUser,
  ws: string,
  revisionId: string,
  body: Record<string, unknown> = { environment_type: "preview" },
) {
  const created = must(
    await api("POST", `/v1/workspaces/${ws}/revisions/${revisionId}/deployments`, { token: owner.token, body }),
    202,
    "deploy",
  );
  if (created.status === "planned") {
    await processPlannedDeployments(5);
    await settledApply(created.id as string);
  }
  return must(
    await api("GET", `/v1/workspaces/${ws}/deployments/${created.id}`, { token: owner.token }),
    200,
    "deployment read",
  );
}
