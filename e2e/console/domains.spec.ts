import http from "node:http";
import { rmSync } from "node:fs";
import { expect, test } from "../support/fixtures";
import { startDnsServer, type TDnsServer } from "../../test/support/dns-server";
import {
  ACTIVE_WITHIN_MS,
  createConfirmedProduct,
  deployRevision,
  makeDeployableAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * Custom domains in the console against a real DNS server: the test serves
 * the zone on 127.0.0.1:E2E_DNS_PORT, where the e2e server's resolver points
 * (playwright.config.ts). Add a domain to a staging deployment, read the
 * records to create, see the check fail in words, publish the records,
 * verify, reach the app through the hostname, delete the domain.
 */
const suffix = uniqueSuffix();
const GREETING = "hello through my own domain";
const HOST = `shop-${suffix}.example.com`;

function viaHost(host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: Number(process.env.E2E_PORT ?? 3100), path: "/", headers: { host } },
      (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

test.describe("domains", () => {
  let repoDir = "";
  let dns: TDnsServer;
  test.beforeAll(async () => {
    repoDir = makeDeployableAppRepository("capstan-e2e-domain-", GREETING).dir;
    dns = await startDnsServer(Number(process.env.E2E_DNS_PORT ?? "5399"));
  });
  test.afterAll(async () => {
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
    await dns?.close();
  });

  test("console domains: add, read the DNS records, fail in words, verify, route, delete", async ({ page }) => {
    test.setTimeout(300_000);
    const ws = await signInAndCreateWorkspace(page, `E2E domains ${suffix}`);
    await test.step("deploy a product to staging", async () => {
      await createConfirmedProduct(page, ws, repoDir);
      await deployRevision(page, "Staging");
      await expect(page.getByText("Active", { exact: true }).first()).toBeVisible({ timeout: ACTIVE_WITHIN_MS });
    });

    let token = "";
    await test.step("add the domain: the records to create are shown with copy buttons", async () => {
      await page.getByRole("link", { name: "Domains", exact: true }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Domains" })).toBeVisible();
      await page.getByLabel("Hostname").fill(HOST.toUpperCase());
      await page.getByLabel("Environment").selectOption("staging");
      await page.getByRole("button", { name: "Add domain" }).click();
      const row = page.getByRole("row").filter({ hasText: HOST });
      await expect(row.getByText(`_capstan-challenge.${HOST}`, { exact: true })).toBeVisible();
      await expect(row.getByText("edge.capstan.test", { exact: true })).toBeVisible();
      await expect(row.getByRole("button", { name: "Copy TXT value" })).toBeVisible();
      token = (await row.getByText(/^capstan-verify=[0-9a-f]{32}$/).textContent())!;
    });

    await test.step("the first check fails and says why", async () => {
      const row = page.getByRole("row").filter({ hasText: HOST });
      await expect(row.getByText("Failed", { exact: true })).toBeVisible({ timeout: 30_000 });
      await expect(row.getByText(/No TXT record was found at _capstan-challenge\./)).toBeVisible();
      expect((await viaHost(HOST)).body).not.toContain(GREETING);
    });

    await test.step("publish the records and verify: the hostname reaches the app", async () => {
      dns.zone.set(`_capstan-challenge.${HOST}`, { TXT: [token] });
      dns.zone.set(HOST, { CNAME: "edge.capstan.test" });
      const row = page.getByRole("row").filter({ hasText: HOST });
      await row.getByRole("button", { name: /^Verify/ }).click();
      await expect(row.getByText("Verified", { exact: true })).toBeVisible({ timeout: 30_000 });
      await expect(row.getByText(/Traffic to this hostname reaches the staging deployment/)).toBeVisible();
      await expect.poll(async () => (await viaHost(HOST)).body, { timeout: 10_000 }).toBe(GREETING);
    });

    await test.step("verify again at once: the 429 is shown in words", async () => {
      const row = page.getByRole("row").filter({ hasText: HOST });
      await row.getByRole("button", { name: /^Verify/ }).click();
      await expect(row.getByText(/less than \d+ s ago/)).toBeVisible();
    });

    await test.step("delete it: it stops routing", async () => {
      const row = page.getByRole("row").filter({ hasText: HOST });
      await row.getByRole("button", { name: /^Delete/ }).click();
      await page
        .getByRole("dialog", { name: "Delete this domain?" })
        .getByRole("button", { name: "Delete domain" })
        .click();
      await expect(page.getByText("No custom domains yet.")).toBeVisible();
      await expect.poll(async () => (await viaHost(HOST)).body, { timeout: 10_000 }).not.toContain(GREETING);
    });
  });
});
