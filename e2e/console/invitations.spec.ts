import { expect, test } from "../support/fixtures";
import { ADMIN, signInAndCreateWorkspace, uniqueSuffix } from "../support/console";
import { invitationLinkOf, startSmtpSink, type TSmtpSink } from "../../test/support/smtp-sink";

/**
 * Issue #21 item 3: the owner invites a new person from the members page; the
 * invitation email arrives at a real SMTP server on loopback (the server's
 * CAPSTAN_SMTP_URL, playwright.config.ts); its link, opened in a fresh
 * browser context, lets the invitee create an account and lands them in the
 * workspace with the invited role. The used link then shows a clear page.
 */
const suffix = uniqueSuffix();
const WORKSPACE = `E2E invitations ${suffix}`;
const INVITEE = { email: `invitee-${suffix}@example.com`, name: `Invitee ${suffix}`, password: "invitee-password-123" };
const REVOKED = `revoked-${suffix}@example.com`;

let sink: TSmtpSink;
test.beforeAll(async () => {
  sink = await startSmtpSink(Number(process.env.E2E_SMTP_PORT));
});
test.afterAll(async () => {
  await sink.stop();
});

test("owner invites by email; the invitee signs up from the emailed link and lands in the workspace", async ({
  page,
  browser,
}) => {
  let ws = "";
  await test.step("the owner invites two people; both are listed as pending with their expiry", async () => {
    ws = await signInAndCreateWorkspace(page, WORKSPACE);
    await page.getByRole("link", { name: "Members" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Members" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "What each role may do" })).toBeVisible();
    for (const email of [INVITEE.email, REVOKED]) {
      await page.getByLabel("Email address to invite").fill(email);
      await page.getByLabel("Role to grant").selectOption("developer");
      await page.getByRole("button", { name: "Send invitation" }).click();
      await expect(page.getByRole("status").filter({ hasText: `Invitation sent to ${email}` })).toBeVisible();
      await expect(page.getByRole("row").filter({ hasText: email })).toContainText("Sent");
    }
  });

  await test.step("revoking one takes it off the list and its link shows the revoked page", async () => {
    const mail = await sink.waitFor(REVOKED);
    await page.getByRole("button", { name: `Revoke the invitation to ${REVOKED}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke invitation" }).click();
    await expect(page.getByRole("row").filter({ hasText: REVOKED })).toHaveCount(0);
    const fresh = await browser.newContext();
    const p = await fresh.newPage();
    await p.goto(new URL(invitationLinkOf(mail)).pathname);
    await expect(p.getByRole("heading", { level: 1, name: "This invitation was revoked" })).toBeVisible();
    await fresh.close();
  });

  await test.step("the invitee opens the emailed link in a fresh browser, creates an account and lands in the workspace", async () => {
    const mail = await sink.waitFor(INVITEE.email);
    expect(mail.subject).toContain(WORKSPACE);
    const link = new URL(invitationLinkOf(mail));
    const fresh = await browser.newContext();
    const p = await fresh.newPage();
    await p.goto(link.pathname);
    await expect(p.getByRole("heading", { level: 1, name: `Join ${WORKSPACE} on Capstan` })).toBeVisible();
    await p.getByLabel("Your name").fill(INVITEE.name);
    await p.getByLabel("Password").fill(INVITEE.password);
    await p.getByRole("button", { name: "Create account and join" }).click();
    await expect(p).toHaveURL(new RegExp(`/console/w/${ws}$`));
    await expect(p.getByRole("banner")).toContainText(INVITEE.email);
    await p.getByRole("link", { name: "Members" }).click();
    await expect(p.getByLabel(`Role for ${INVITEE.email}`)).toHaveValue("developer");

    await p.goto(link.pathname);
    await expect(p.getByRole("heading", { level: 1, name: "This invitation has already been used" })).toBeVisible();
    await fresh.close();
  });

  await test.step("the owner sees the new member and no pending invitation", async () => {
    await page.reload();
    await expect(page.getByRole("row").filter({ hasText: INVITEE.email })).toContainText(INVITEE.name);
    await expect(page.getByText("No pending invitations.")).toBeVisible();
    await expect(page.getByRole("banner")).toContainText(ADMIN.email);
  });
});
