import { rmSync } from "node:fs";
import pg from "pg";
import { expect, test } from "../support/fixtures";
import {
  deployToPreviewAndWaitActive,
  makeDeployableAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * The runner hosts page (platform owners and admins): the e2e server is a
 * runner host itself (`npm start` runs every role), so a deployment's page
 * names it and the list shows it with its load. A second host is a row this
 * spec registers in the server's database (capacity 0, so no placement ever
 * goes to it, and nothing of the other specs moves): it is cordoned and
 * uncordoned, and drained through the confirm dialog (cancelled once, then
 * confirmed); with nothing on it the drain ends at once as drained.
 * Needs E2E_DATABASE_URL (set by `npm test`), like billing-platform.spec.
 */
const suffix = uniqueSuffix();
const FAKE = `e2e-host-${suffix}:/nowhere/run`;

async function sql(text: string, values: unknown[]): Promise<void> {
  const url = process.env.E2E_DATABASE_URL;
  if (!url)
    throw new Error(
      "runner-hosts.spec needs E2E_DATABASE_URL (the server's PostgreSQL database) to register a second host; `npm test` sets it",
    );
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

test.describe("runner hosts", () => {
  let repoDir = "";
  test.beforeAll(async () => {
    repoDir = makeDeployableAppRepository("capstan-e2e-hosts-", "hosts app").dir;
    await sql(
      `INSERT INTO runner_hosts (id, endpoint, capacity, state, lease_expires_at, sandbox)
       VALUES ($1, 'http://127.0.0.1:9', 0, 'live', now() + interval '1 hour', 'bubblewrap')`,
      [FAKE],
    );
  });
  test.afterAll(async () => {
    if (repoDir) rmSync(repoDir, { recursive: true, force: true });
    await sql("DELETE FROM runner_hosts WHERE id = $1", [FAKE]);
  });

  test("console runner hosts: a deployment names its host; list, cordon, uncordon, drain with its confirm", async ({
    page,
  }) => {
    test.setTimeout(300_000);
    const ws = await signInAndCreateWorkspace(page, `E2E hosts ${suffix}`);

    let host = "";
    await test.step("a deployment's page names the runner host it runs on", async () => {
      await deployToPreviewAndWaitActive(page, ws, repoDir);
      const field = page.locator("dt", { hasText: /^Runner host$/ }).locator("xpath=following-sibling::dd[1]");
      host = (await field.locator("code").textContent())!.trim();
      expect(host).toMatch(/^[^:\s]+:\/.+$/);
    });

    const rowOf = (name: string) => page.getByRole("row").filter({ hasText: name });
    await test.step("the list shows both hosts with state, load and sandbox", async () => {
      await page.goto("/console/runner-hosts");
      await expect(page).toHaveURL(/\/console\/runner-hosts$/);
      await expect(page.getByRole("heading", { level: 1, name: "Runner hosts" })).toBeVisible();
      const mine = rowOf(host);
      await expect(mine.getByText("Live", { exact: true })).toBeVisible();
      await expect(mine.getByRole("cell", { name: /^[1-9]\d* \/ \d+$/ })).toBeVisible();
      const fake = rowOf(FAKE);
      await expect(fake.getByText("Live", { exact: true })).toBeVisible();
      await expect(fake.getByRole("cell", { name: "0 / 0", exact: true })).toBeVisible();
      await expect(fake.getByText("bubblewrap")).toBeVisible();
      await expect(fake.getByText("http://127.0.0.1:9")).toBeVisible();
    });

    await test.step("cordon, then uncordon, each confirmed", async () => {
      const fake = rowOf(FAKE);
      await fake.getByRole("button", { name: `Cordon ${FAKE}` }).click();
      const cordon = page.getByRole("dialog", { name: `Cordon ${FAKE}?` });
      await expect(cordon.getByText(/no new deployment is placed on it/)).toBeVisible();
      await cordon.getByRole("button", { name: "Cordon" }).click();
      await expect(fake.getByText("Cordoned", { exact: true })).toBeVisible();
      await expect(fake.getByText(/^Cordoned .+/)).toBeVisible();
      await fake.getByRole("button", { name: `Uncordon ${FAKE}` }).click();
      await page
        .getByRole("dialog", { name: `Uncordon ${FAKE}?` })
        .getByRole("button", { name: "Uncordon" })
        .click();
      await expect(fake.getByText("Live", { exact: true })).toBeVisible();
      await expect(fake.getByRole("button", { name: `Cordon ${FAKE}` })).toBeVisible();
    });

    await test.step("drain: the dialog says what happens; cancel changes nothing; confirm drains it", async () => {
      const fake = rowOf(FAKE);
      await fake.getByRole("button", { name: `Drain ${FAKE}` }).click();
      const dialog = page.getByRole("dialog", { name: `Drain ${FAKE}?` });
      await expect(dialog.getByText(/each new one active before the old one stops/)).toBeVisible();
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await expect(dialog).toHaveCount(0);
      await expect(fake.getByText("Live", { exact: true })).toBeVisible();

      await fake.getByRole("button", { name: `Drain ${FAKE}` }).click();
      await page
        .getByRole("dialog", { name: `Drain ${FAKE}?` })
        .getByRole("button", { name: "Drain" })
        .click();
      // Nothing runs on it: the drain loop finds nothing to move and marks it drained.
      await expect(fake.getByText("Drained", { exact: true })).toBeVisible({ timeout: 30_000 });
      await expect(fake.getByText(/no deployment left/)).toBeVisible();
      await expect(fake.getByRole("button", { name: `Drain ${FAKE}` })).toHaveCount(0);
      // The host this spec's app runs on was not touched.
      await expect(rowOf(host).getByText("Live", { exact: true })).toBeVisible();

      await fake.getByRole("button", { name: `Uncordon ${FAKE}` }).click();
      await page
        .getByRole("dialog", { name: `Uncordon ${FAKE}?` })
        .getByRole("button", { name: "Uncordon" })
        .click();
      await expect(fake.getByText("Live", { exact: true })).toBeVisible();
    });
  });
});
