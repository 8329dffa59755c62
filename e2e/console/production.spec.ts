import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { startDnsServer, type TDnsServer } from "../../test/support/dns-server";
import {
  createConfirmedProduct,
  makeDeployableAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
  type TRepo,
} from "../support/console";

/**
 * The production path in a real browser (issue #32): a fixture product is
 * evaluated (v1), released and live on staging, promoted from the release
 * page to production, given a custom domain verified against a DNS server on
 * loopback, and opened in the browser on that domain (Chromium resolves
 * *.apps.e2e.example.com to the e2e server, playwright.config.ts): the app
 * sees its own cookie (named like NextAuth's) and Authorization header. A
 * session invocation on production is admitted; v2 replaces v1 in
 * production; Roll back on the release page makes v1 live again.
 */
const suffix = uniqueSuffix();
const HOST = `shop-${suffix}.apps.e2e.example.com`;
const PORT = Number(process.env.E2E_PORT ?? 3100);

/** The app: its page fetches /whoami with its own bearer token; / also sets its own session cookie. */
const appSource = (version: string) => `const http = require("http");
http.createServer((q, s) => {
  if (q.url === "/whoami") {
    s.setHeader("content-type", "application/json");
    return s.end(JSON.stringify({ version: ${JSON.stringify(version)}, cookie: q.headers.cookie || null, authorization: q.headers.authorization || null }));
  }
  s.setHeader("content-type", "text/html; charset=utf-8");
  s.setHeader("set-cookie", "next-auth.session-token=app-own-session; Path=/; SameSite=Lax");
  s.end('<!doctype html><html lang="en"><head><title>Shop</title></head><body><main><h1>${version}</h1><p id="seen">asking</p></main>'
    + '<script>fetch("/whoami", { headers: { authorization: "Bearer app-own-token" } }).then((r) => r.json()).then((j) => { document.getElementById("seen").textContent = JSON.stringify(j); });</script></body></html>');
}).listen(Number(process.env.PORT));
`;

function writeVersion(repo: TRepo, version: string): void {
  writeFileSync(path.join(repo.dir, "server.js"), appSource(version));
  repo.git("add", "-A");
  repo.git("commit", "-qm", version);
}

test.describe("production", () => {
  let repo: TRepo;
  let dns: TDnsServer;
  test.beforeAll(async () => {
    repo = makeDeployableAppRepository("capstan-e2e-production-", "placeholder");
    writeVersion(repo, "version one");
    dns = await startDnsServer(Number(process.env.E2E_DNS_PORT ?? "5399"));
  });
  test.afterAll(async () => {
    if (repo) rmSync(repo.dir, { recursive: true, force: true });
    await dns?.close();
  });

  test("evaluate, release, promote, verify a domain, open the app on it, invoke production, roll back", async ({
    page,
    request,
  }) => {
    test.setTimeout(600_000);
    const ws = await signInAndCreateWorkspace(page, `E2E production ${suffix}`);
    const token = await apiToken(page);
    const api = client(request, ws, token);

    let productId = "";
    await test.step("a fixture product is evaluated: v1", async () => {
      await createConfirmedProduct(page, ws, repo.dir);
      const rev = /\/revisions\/(rev_[0-9a-z]{26})/.exec(page.url())![1]!;
      productId = (await api.get(`/revisions/${rev}`)).product_id;
      await page.getByRole("button", { name: "Evaluate", exact: true }).click();
      const checks = page
        .getByRole("region", { name: "Latest evaluation" })
        .getByRole("list", { name: "Checks" })
        .getByRole("listitem");
      await expect(checks.filter({ hasText: "Passed" })).toHaveCount(6, { timeout: 180_000 });
      await expect(page.getByRole("list", { name: "Versions" })).toContainText("v1");
    });

    const v1 = await test.step("v1 is released and live on staging", () =>
      releaseLiveOnStaging(page, api, ws, productId, "v1"));

    await test.step("promote it from the release page: live in production", async () => {
      await page.getByRole("button", { name: "Promote to production" }).click();
      const dialog = page.getByRole("dialog", { name: "Promote to production?" });
      await expect(dialog).toContainText("A production deployment of this release's version starts now");
      await expect(dialog).toContainText("nothing is live in production yet");
      await dialog.getByRole("button", { name: "Promote" }).click();
      await expect(page.getByText("production, custom")).toBeVisible();
      await expect(page.getByRole("list", { name: "Status timeline" }).getByRole("listitem")).toHaveCount(5, {
        timeout: 120_000,
      });
      await expect(page.getByRole("list", { name: "Status timeline" }).getByRole("listitem").nth(4)).toContainText(
        "Live",
      );
      const rel = await api.get(`/releases/${v1}`);
      expect(await api.get(`/deployments/${rel.deployment_id}`)).toMatchObject({
        environment_type: "production",
        status: "active",
        source: { kind: "release", release_id: v1 },
      });
    });

    let production = "";
    await test.step("production is verification_blocked until a custom domain is verified against the loopback DNS server", async () => {
      production = (await api.get(`/deployments/${(await api.get(`/releases/${v1}`)).deployment_id}`)).surface_id;
      expect((await invoke(api, token, production)).admission).toMatchObject({
        outcome: "denied",
        reason: "verification_blocked",
      });
      const d = await api.post(
        "/domains",
        { product_id: productId, environment_type: "production", hostname: HOST },
        201,
      );
      dns.zone.set(`_capstan-challenge.${HOST}`, { TXT: [d.verification_record.value] });
      dns.zone.set(HOST, { CNAME: "edge.capstan.test" });
      await expect
        .poll(async () => (await api.get(`/domains/${d.id}`)).status, { timeout: 30_000 })
        .toMatch(/verified|failed/);
      if ((await api.get(`/domains/${d.id}`)).status !== "verified") await api.post(`/domains/${d.id}/verify`, {}, 202);
      await expect.poll(async () => (await api.get(`/domains/${d.id}`)).status, { timeout: 30_000 }).toBe("verified");
    });

    await test.step("the browser opens the app on its domain: the app sees its own cookie and Authorization header", async () => {
      await page.goto(`http://${HOST}:${PORT}/`);
      await expect(page.getByRole("heading", { level: 1, name: "version one" })).toBeVisible();
      const seen = page.locator("#seen");
      await expect(seen).toContainText('"authorization":"Bearer app-own-token"');
      await expect(seen).toContainText('"cookie":"next-auth.session-token=app-own-session"');
      const cookies = await page.context().cookies(`http://${HOST}:${PORT}/`);
      expect(cookies.map((c) => `${c.name}=${c.value}`)).toContain("next-auth.session-token=app-own-session");
    });

    await test.step("a session invocation on production is admitted", async () => {
      const inv = await invoke(api, token, production);
      expect(inv.admission).toMatchObject({ outcome: "admitted", reason: "admitted" });
      expect(inv.execution.result.http_status).toBe(200);
    });

    const v2 = await test.step("v2 replaces v1 in production", async () => {
      writeVersion(repo, "version two");
      const frz = await api.post(`/products/${productId}/source-freezes`, { ref: "main" }, 202);
      await expect
        .poll(async () => (await api.get(`/source-freezes/${frz.source_freeze_id}`)).status, { timeout: 60_000 })
        .toBe("frozen");
      const rev = (await api.get(`/source-freezes/${frz.source_freeze_id}`)).revision.id as string;
      await api.post(`/products/${productId}/revisions/${rev}/descriptor:confirm`, {}, 200);
      const e = await api.post(`/revisions/${rev}/evaluations`, {}, 202);
      await expect
        .poll(async () => (await api.get(`/evaluations/${e.id}`)).status, { timeout: 180_000 })
        .toBe("passed");
      const rel = await releaseLiveOnStaging(page, api, ws, productId, "v2");
      await api.post(`/releases/${rel}:promote`, {}, 202);
      await expect.poll(async () => (await api.get(`/releases/${rel}`)).status, { timeout: 120_000 }).toBe("live");
      expect(await api.get(`/releases/${v1}`)).toMatchObject({ status: "retired", reason_code: "superseded" });
      await expect
        .poll(
          async () => {
            await page.goto(`http://${HOST}:${PORT}/`);
            return page.getByRole("heading", { level: 1 }).textContent();
          },
          { timeout: 30_000 },
        )
        .toBe("version two");
      return rel;
    });

    await test.step("Roll back on the release page: v1 is live again, without a new evaluation", async () => {
      const versionsBefore = (await api.get(`/versions?product_id=${productId}`)).items.length;
      await page.goto(`/console/w/${ws}/releases/${v2}`);
      await page.getByRole("button", { name: "Roll back" }).click();
      const dialog = page.getByRole("dialog", { name: "Roll back production?" });
      await expect(dialog).toContainText("deployed again as it was (no new evaluation)");
      await dialog.getByRole("button", { name: "Roll back" }).click();
      await expect(page).toHaveURL(new RegExp(`/releases/${v1}$`));
      await expect(page.getByRole("list", { name: "Status timeline" }).getByRole("listitem").last()).toContainText(
        "Live",
        { timeout: 120_000 },
      );
      expect(await api.get(`/releases/${v2}`)).toMatchObject({ status: "retired", reason_code: "rolled_back" });
      expect((await api.get(`/versions?product_id=${productId}`)).items.length).toBe(versionsBefore);
      await expect
        .poll(
          async () => {
            await page.goto(`http://${HOST}:${PORT}/`);
            return page.getByRole("heading", { level: 1 }).textContent();
          },
          { timeout: 30_000 },
        )
        .toBe("version one");
    });
  });
});

/** A personal API token from the console's API tokens page (shown once). */
async function apiToken(page: Page): Promise<string> {
  await page.goto("/console/tokens");
  await page.getByLabel("Token name").fill(`e2e production ${suffix}`);
  await page.getByRole("button", { name: "Create token" }).click();
  return page.getByLabel("New API token").inputValue();
}

function client(request: APIRequestContext, ws: string, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  const at = (p: string) => (p.startsWith("/v1/") ? p : `/v1/workspaces/${ws}${p}`);
  return {
    async get(p: string) {
      const res = await request.get(at(p), { headers });
      expect(res.status(), await res.text()).toBe(200);
      return res.json();
    },
    async post(p: string, data: unknown, status: number) {
      const res = await request.post(at(p), { headers, data });
      expect(res.status(), await res.text()).toBe(status);
      return res.json();
    },
  };
}

/** The latest version of the product released (audience custom), deployed to staging and live there; opens the release page. */
async function releaseLiveOnStaging(
  page: Page,
  api: ReturnType<typeof client>,
  ws: string,
  productId: string,
  label: string,
): Promise<string> {
  const versions = (await api.get(`/versions?product_id=${productId}`)).items as Array<{ id: string; label: string }>;
  const version = versions.find((v) => v.label === label)!;
  const rel = await api.post(
    "/releases",
    {
      product_id: productId,
      version_id: version.id,
      channel: "staged",
      audience: { kind: "custom" },
      window: { starts_at: new Date(Date.now() - 60_000).toISOString(), ends_at: null },
    },
    201,
  );
  await api.post(`/releases/${rel.id}/deployments`, {}, 202);
  await page.goto(`/console/w/${ws}/releases/${rel.id}`);
  await expect(page.getByRole("list", { name: "Status timeline" }).getByText("Live", { exact: true })).toBeVisible({
    timeout: 120_000,
  });
  return rel.id as string;
}

async function invoke(api: ReturnType<typeof client>, _token: string, surfaceId: string) {
  const ses = await api.post("/v1/sessions", { surface_id: surfaceId }, 201);
  return api.post(
    `/v1/sessions/${ses.id}/invocations`,
    { kind: "http_request", method: "GET", path: "/whoami", body_evidence: null },
    201,
  );
}
