import { readFileSync, rmSync } from "node:fs";
import { type Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { axeFindings } from "../support/quality";
import {
  bridgeToken,
  createConfirmedProduct,
  createWorkspace,
  makeAppRepository,
  signInAndCreateWorkspace,
  uniqueSuffix,
} from "../support/console";

/**
 * Exploring Bridge calls (#21 item 4): a service identity makes a data.kv call
 * that completes and one that is denied (a key outside the contract's prefix).
 * The invocations page filters by outcome and reason with the filters in the
 * URL (a reload keeps them), exports exactly the rows shown as CSV, and opens
 * the denied call's drill-down: checks, reason in words, usage, evidence,
 * caller by name, and the correlation id leading to its events and to the
 * audit log filtered to it (which exports too). Unknown, malformed and
 * other-workspace ids are the console's not-found page. Axe is clean on each
 * page at 1440 and 390 px, and nothing scrolls sideways on the phone.
 */
const suffix = uniqueSuffix();
const IDENTITY = `explorer-${suffix}`;
const KV = {
  id: "data.kv",
  required: true,
  actions: ["get", "set"],
  scope: { prefix: "/app", max_value_bytes: 1024, max_keys: 100 },
  credential_owner: "platform",
  provider: { allow: ["platform"], fallback: "none" },
};

let repoDir = "";
test.beforeAll(() => {
  repoDir = makeAppRepository("capstan-e2e-explore-repo-", [KV]).dir;
});
test.afterAll(() => {
  if (repoDir) rmSync(repoDir, { recursive: true, force: true });
});

const dataRows = (page: Page) => page.getByRole("row").filter({ has: page.getByRole("cell") });

async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
}

/** A strict RFC 4180 reader: quoted fields, doubled quotes, CRLF records. */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      out.push(row);
      row = [];
      field = "";
      i += 1;
    } else field += c;
  }
  return out;
}

async function downloadCsv(page: Page): Promise<{ name: string; rows: Record<string, string>[] }> {
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export CSV" }).click(),
  ]);
  const text = readFileSync(await download.path(), "utf8").replace(/^\uFEFF/, "");
  const [header, ...rows] = parseCsv(text);
  return {
    name: download.suggestedFilename(),
    rows: rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ""]))),
  };
}

test("explore Bridge calls: filter in the URL, CSV of what is shown, drill-down with checks and correlation, at 1440 and 390 px", async ({
  page,
  request,
  capstan,
}) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const ws = await signInAndCreateWorkspace(page, `E2E explore ${suffix}`);
  const findings: string[] = [];
  const axe = async (label: string) => {
    for (const f of await axeFindings(page)) findings.push(`${label}: ${f}`);
  };

  await test.step("a product with a data.kv contract and a service identity for it", async () => {
    await createConfirmedProduct(page, ws, repoDir);
  });
  const client = { id: "", secret: "" };
  await test.step("create the service identity", async () => {
    await page.goto(`/console/w/${ws}/service-identities`);
    await page.getByLabel("Name", { exact: true }).fill(IDENTITY);
    await page.getByLabel("Product", { exact: true }).selectOption({ index: 1 });
    await page.getByRole("button", { name: "Create service identity" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Service identity "${IDENTITY}" created` })).toBeVisible();
    client.id = await page.getByLabel("Client ID", { exact: true }).inputValue();
    client.secret = await page.getByLabel("Client secret", { exact: true }).inputValue();
    await page.getByRole("button", { name: "Done" }).click();
  });

  let correlationId = "";
  await test.step("one call completes, one is denied outside the contract", async () => {
    const headers = { authorization: `Bearer ${await bridgeToken(capstan, client)}` };
    const set = await request.post("/v1/capabilities/data.kv/set", {
      headers,
      data: { key: "/app/greeting", value: "hello" },
    });
    expect(set.status(), await set.text()).toBe(200);
    const denied = await request.post("/v1/capabilities/data.kv/get", { headers, data: { key: "/elsewhere/secret" } });
    expect(denied.status(), await denied.text()).toBe(403);
    expect(await denied.json()).toMatchObject({ reason: "outside_contract" });
    correlationId = denied.headers()["x-correlation-id"] ?? "";
    expect(correlationId).toMatch(/^evt_/);
  });

  let productName = "";
  await test.step("filter by outcome and reason: the URL keeps the filters across a reload", async () => {
    await expect(async () => {
      await page.goto(`/console/w/${ws}/invocations`);
      await expect(page.getByRole("table", { name: "2 invocation(s)" })).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    productName = (await page.getByLabel("Product", { exact: true }).locator("option").nth(1).textContent()) ?? "";
    expect(productName).not.toBe("");
    // The caller column names the product and the service identity.
    await expect(dataRows(page).first()).toContainText(productName);
    await expect(dataRows(page).first()).toContainText(IDENTITY);

    await page.getByLabel("Outcome", { exact: true }).selectOption("denied");
    await expect(page).toHaveURL(/[?&]outcome=denied/);
    await expect(page.getByRole("table", { name: "1 invocation(s)" })).toBeVisible();
    await page.getByLabel("Reason", { exact: true }).selectOption("outside_contract");
    await expect(page).toHaveURL(/[?&]reason=outside_contract/);
    await page.getByLabel("Service identity", { exact: true }).selectOption({ label: IDENTITY });
    await page.getByLabel("Time range", { exact: true }).selectOption("24h");
    await expect(page).toHaveURL(/[?&]range=24h/);
    await page.reload();
    await expect(page.getByLabel("Outcome", { exact: true })).toHaveValue("denied");
    await expect(page.getByLabel("Reason", { exact: true })).toHaveValue("outside_contract");
    await expect(page.getByLabel("Time range", { exact: true })).toHaveValue("24h");
    await expect(page.getByRole("table", { name: "1 invocation(s)" })).toBeVisible();
    await expect(dataRows(page)).toContainText("data.kv get");
    await axe("1440 invocations (filtered)");

    // A reason with no match in this workspace: nothing shown, nothing exported.
    await page.getByLabel("Reason", { exact: true }).selectOption("usage_denied");
    await expect(page.getByRole("table", { name: "No capability invocations match." })).toBeVisible();
    await expect(page.getByRole("button", { name: "Export CSV" })).toBeDisabled();
    await page.getByLabel("Reason", { exact: true }).selectOption("outside_contract");
    await expect(page.getByRole("table", { name: "1 invocation(s)" })).toBeVisible();
  });

  let capId = "";
  await test.step("the CSV holds exactly the row shown", async () => {
    const csv = await downloadCsv(page);
    expect(csv.name).toMatch(new RegExp(`^capstan-invocations-${ws}-\\d{8}T\\d{4}Z\\.csv$`));
    expect(csv.rows).toHaveLength(1);
    const row = csv.rows[0]!;
    expect(row).toMatchObject({
      capability: "data.kv",
      action: "get",
      outcome: "denied",
      reason: "outside_contract",
      product_name: productName,
      service_identity_id: client.id,
      service_identity_name: IDENTITY,
      correlation_id: correlationId,
    });
    capId = row.id!;
    expect(capId).toMatch(/^cap_/);
  });

  await test.step("the drill-down: reason, checks, usage, evidence and caller by name", async () => {
    await dataRows(page)
      .getByRole("link", { name: /open invocation cap_/ })
      .click();
    await expect(page).toHaveURL(new RegExp(`/console/w/${ws}/invocations/${capId}$`));
    await expect(page.getByRole("heading", { level: 1, name: "Invocation" })).toBeVisible();
    await expect(page.getByText("Outside the product's confirmed capability contract")).toBeVisible();
    const checks = page.getByRole("list", { name: "Checks" }).getByRole("listitem");
    await expect(checks).toHaveCount(6);
    await expect(checks.nth(0)).toContainText("Contract");
    await expect(checks.nth(0)).toContainText("Failed: decided the call");
    await expect(checks.nth(1)).toContainText("Permission");
    await expect(checks.nth(1)).toContainText("Not reached");
    await expect(page.getByText("0 bytes", { exact: true })).toBeVisible(); // usage of a denied call
    await expect(page.getByText(/^[0-9a-f]{64}$/).first()).toBeVisible(); // the request's SHA-256
    await expect(page.getByRole("link", { name: productName, exact: true })).toBeVisible();
    await expect(page.getByText(IDENTITY, { exact: true })).toBeVisible();
    await expect(page.getByRole("list", { name: "Audit records of this correlation" })).toContainText(
      "capability.denied",
    );
    await axe("1440 invocation");
  });

  await test.step("the correlation id leads to its events", async () => {
    await page.getByRole("link", { name: "Events of this correlation" }).click();
    await expect(page).toHaveURL(new RegExp(`/correlations/${correlationId}$`));
    await expect(page.getByRole("heading", { level: 1, name: "Correlation" })).toBeVisible();
    await expect(page.getByRole("list", { name: "Event timeline" })).toContainText("capability.invocation_resulted");
    await page.goBack();
    await expect(page.getByRole("heading", { level: 1, name: "Invocation" })).toBeVisible();
  });

  await test.step("and to the audit log filtered to it, whose CSV holds those rows", async () => {
    await page.getByRole("link", { name: "Audit records of this correlation" }).click();
    await expect(page).toHaveURL(new RegExp(`/audit\\?correlation_id=${correlationId}$`));
    await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
    await expect(page.getByRole("list", { name: "Active filters" })).toContainText(correlationId);
    await expect(dataRows(page)).toHaveCount(1);
    await expect(dataRows(page)).toContainText("capability.denied");
    await axe("1440 audit (by correlation)");
    const csv = await downloadCsv(page);
    expect(csv.name).toMatch(/^capstan-audit-/);
    expect(csv.rows).toHaveLength(1);
    expect(csv.rows[0]).toMatchObject({ action: "capability.denied", correlation_id: correlationId });
    expect(JSON.parse(csv.rows[0]!.details!)).toMatchObject({ reason: "outside_contract", capability: "data.kv" });

    // The audit page's own pickers: the actor by name and a time range, kept in the URL; the chip names the actor.
    await page.getByRole("button", { name: `Remove filter Correlation ${correlationId}` }).click();
    await page.getByLabel("Actor", { exact: true }).selectOption({ label: `${IDENTITY} (service identity)` });
    await expect(page).toHaveURL(new RegExp(`[?&]actor_id=${client.id}`));
    await page.getByLabel("Time range", { exact: true }).selectOption("1h");
    await expect(page).toHaveURL(/[?&]range=1h/);
    await page.reload();
    await expect(page.getByRole("list", { name: "Active filters" })).toContainText(`Actor: ${IDENTITY} ${client.id}`);
    await expect(dataRows(page)).toHaveCount(1);
    await expect(dataRows(page)).toContainText("capability.denied");
  });

  await test.step("390 px: the filtered list and the drill-down are axe clean and do not scroll sideways", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/console/w/${ws}/invocations?outcome=denied`);
    await expect(page.getByRole("table", { name: "1 invocation(s)" })).toBeVisible();
    await axe("390 invocations (filtered)");
    expect(await scrollsSideways(page), "invocations scroll sideways at 390 px").toBe(false);
    await dataRows(page)
      .getByRole("link", { name: /open invocation cap_/ })
      .click();
    await expect(page.getByRole("heading", { level: 1, name: "Invocation" })).toBeVisible();
    await expect(page.getByRole("list", { name: "Audit records of this correlation" })).toBeVisible();
    await axe("390 invocation");
    expect(await scrollsSideways(page), "the drill-down scrolls sideways at 390 px").toBe(false);
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  await test.step("unknown, malformed and other-workspace ids are the console's not-found page", async () => {
    for (const path of [
      `/console/w/${ws}/invocations/cap_00000000000000000000000000`,
      `/console/w/${ws}/invocations/not-an-id`,
    ]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1, name: "Page not found" }), path).toBeVisible();
    }
    await page.goto("/console");
    const other = await createWorkspace(page, `E2E explore elsewhere ${suffix}`);
    await page.goto(`/console/w/${other}/invocations/${capId}`);
    await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
    await expect(page.getByText("data.kv")).toHaveCount(0);
    await page.goto(`/console/w/${other}/invocations?outcome=denied`);
    await expect(page.getByRole("table", { name: "No capability invocations match." })).toBeVisible();
  });

  expect(findings, "serious or critical axe findings").toEqual([]);
});
