import pg from "pg";
import { type Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { signInAndCreateWorkspace, uniqueSuffix } from "../support/console";

/**
 * Backups of a managed PostgreSQL database in the console (issue #33 item 4):
 * the owner creates a database (its URL shown once: the spec writes rows
 * through it, as an app would), backs it up from the resource's Backups
 * panel, sees the backup listed, completed with its size, writes one more
 * row, then restores over the database with its confirm (the button stays
 * disabled until the resource's name is typed) and reads the row gone; a
 * restore into a new resource lists that resource. Both are destroyed at the
 * end, so no database is left on the server.
 *
 * Managed PostgreSQL needs the e2e server on PostgreSQL: E2E_DATABASE_URL
 * (set by `npm test` whenever PostgreSQL is reachable, as in CI).
 */
const suffix = uniqueSuffix();

async function ids(url: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<{ id: number }>("SELECT id FROM notes ORDER BY id")).rows.map((r) => r.id);
  } finally {
    await c.end();
  }
}

async function exec(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const rowOf = (page: Page, name: string) =>
  page.getByRole("row").filter({ has: page.getByText(name, { exact: true }) });

async function destroy(page: Page, name: string): Promise<void> {
  const row = rowOf(page, name);
  await row.getByRole("button", { name: `Delete ${name}` }).click();
  const dialog = page.getByRole("dialog", { name: `Delete ${name}?` });
  await dialog.getByLabel(/Skip the grace period/).check();
  await dialog.getByRole("button", { name: "Destroy now" }).click();
  await expect(row).toHaveCount(0, { timeout: 60_000 });
}

test("console backups: back up now, listed with its size, restore over the database with its confirm, and into a new one", async ({
  page,
}) => {
  if (!process.env.E2E_DATABASE_URL)
    throw new Error(
      "backups.spec needs E2E_DATABASE_URL (managed PostgreSQL runs on the server's PostgreSQL); `npm test` sets it",
    );
  test.setTimeout(240_000);
  const ws = await signInAndCreateWorkspace(page, `E2E backups ${suffix}`);
  const name = `bk-${suffix}`.slice(0, 30);
  let url = "";

  await test.step("create a database and write two rows through its URL", async () => {
    await page.goto(`/console/w/${ws}/resources`);
    await expect(page.getByRole("heading", { level: 1, name: "Resources" })).toBeVisible();
    await page.getByLabel("Name").fill(name);
    await page.getByRole("button", { name: "Create resource" }).click();
    await expect(page.getByLabel("Connection URL")).toHaveValue(/^postgresql:\/\/mres_/);
    url = await page.getByLabel("Connection URL").inputValue();
    await page.getByRole("button", { name: "Done" }).click();
    await expect(rowOf(page, name).getByText("Available", { exact: true })).toBeVisible({ timeout: 60_000 });
    await exec(url, "CREATE TABLE notes (id int PRIMARY KEY); INSERT INTO notes VALUES (1), (2)");
  });

  const backups = page.getByRole("list", { name: `Backups of ${name}` });
  // The daily schedule takes a first backup of a new database within a minute (its worker ticks every 60 s), so
  // the list may hold a scheduled one beside ours: every check reads the on-demand backup's own row.
  const onDemand = backups.getByRole("listitem").filter({ hasText: "On demand" });
  await test.step("back up now: the backup is listed, on demand, then completed with its size", async () => {
    const row = rowOf(page, name);
    await row.getByText(`Backups of ${name}`).click();
    // Not "No backups yet": the schedule may already have taken the first one (see above).
    await expect(row.getByRole("button", { name: "Back up now" })).toBeVisible();
    await row.getByRole("button", { name: "Back up now" }).click();
    await expect(onDemand).toHaveCount(1);
    await expect(onDemand.getByText("Completed", { exact: true })).toBeVisible({ timeout: 60_000 });
    await expect(onDemand).toContainText(/\d[\d,.]* (bytes|KiB|MiB)/);
  });

  await test.step("restore over the database: confirm by typing its name; the row written after is gone", async () => {
    await exec(url, "INSERT INTO notes VALUES (3)");
    expect(await ids(url)).toEqual([1, 2, 3]);
    await onDemand.getByRole("button", { name: /^Restore backup bak_/ }).click();
    const dialog = page.getByRole("dialog", { name: `Restore the backup of ${name}?` });
    await dialog.getByLabel(new RegExp(`^Over ${name}: everything written since the backup is lost`)).check();
    const replace = dialog.getByRole("button", { name: "Replace the data" });
    await expect(replace).toBeDisabled();
    await dialog.getByLabel(`Type ${name} to confirm`).fill(name.slice(0, -1));
    await expect(replace).toBeDisabled();
    await dialog.getByLabel(`Type ${name} to confirm`).fill(name);
    await replace.click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("status").filter({ hasText: `Restoring over ${name}` })).toBeVisible();
    await expect.poll(() => ids(url), { timeout: 60_000 }).toEqual([1, 2]);
  });

  let fork = "";
  await test.step("restore into a new resource: it is listed and becomes available", async () => {
    await onDemand.getByRole("button", { name: /^Restore backup bak_/ }).click();
    const dialog = page.getByRole("dialog", { name: `Restore the backup of ${name}?` });
    await expect(dialog.getByLabel(/^Into a new resource/)).toBeChecked();
    await dialog.getByRole("button", { name: "Restore into a new resource" }).click();
    const status = page.getByRole("status").filter({ hasText: /^Restoring into a new resource \(mres_[0-9a-z]+\)/ });
    await expect(status).toBeVisible();
    fork = /\((mres_[0-9a-z]+)\)/.exec((await status.textContent()) ?? "")![1]!;
    // The source's row shows the status above (naming the fork's id), the fork's row its name.
    const forkRow = page.getByRole("row").filter({ hasText: `${name}-restored-` });
    await expect(forkRow).toHaveCount(1, { timeout: 30_000 });
    await expect(forkRow).toContainText(fork);
    await expect(forkRow.getByText("Available", { exact: true })).toBeVisible({ timeout: 60_000 });
  });

  await test.step("destroy both at once (owner): nothing is left behind", async () => {
    const deleteFork = page
      .getByRole("row")
      .filter({ hasText: `${name}-restored-` })
      .getByRole("button", { name: /^Delete / });
    const forkName = ((await deleteFork.textContent()) ?? "").replace(/^Delete/, "").trim();
    expect(forkName).toMatch(new RegExp(`^${name}-restored-`));
    await destroy(page, forkName);
    await destroy(page, name);
  });
});
