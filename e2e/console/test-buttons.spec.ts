import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "../support/fixtures";
import { startOpenAiServer, type TOpenAiServer } from "../../test/support/openai-server";
import { signInAndCreateWorkspace, uniqueSuffix } from "../support/console";

/**
 * The console's test buttons (#21 item 5), end to end against real servers
 * on 127.0.0.1 (playwright.config.ts allows loopback webhook targets and
 * provider base URLs):
 * - a webhook endpoint's "Send test event" delivers a signed webhook.test
 *   event to a loopback receiver, and the dialog shows the request (URL,
 *   signature headers, body) and the receiver's response;
 * - an ai.generate binding's "Test" makes one max_tokens 1 call to a
 *   loopback OpenAI-compatible server and shows the latency and the answer.
 */
const suffix = uniqueSuffix();
const API_KEY = `sk-e2e-buttons-${suffix}`;
const ANSWER = `OK from the loopback model ${suffix}`;
const RECEIVER_SAYS = `received by the loopback receiver ${suffix}`;

type TReceived = { headers: http.IncomingHttpHeaders; body: string };
const received: TReceived[] = [];
let receiver: http.Server | undefined;
let receiverUrl = "";
let provider: TOpenAiServer | undefined;

test.beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "text/plain", "x-receiver": "loopback" });
      res.end(RECEIVER_SAYS);
    });
  });
  await new Promise<void>((resolve) => receiver!.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/${suffix}`;
  provider = await startOpenAiServer(API_KEY, { text: ANSWER });
});
test.afterAll(async () => {
  await provider?.close();
  if (receiver) await new Promise((resolve) => receiver!.close(resolve));
});

test("test buttons: a webhook's test event shows the signed delivery; an ai binding's test shows latency and the answer", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const ws = await signInAndCreateWorkspace(page, `E2E test buttons ${suffix}`);

  await test.step("send a test event to a webhook endpoint; the dialog shows request, signature headers and response", async () => {
    await page.goto(`/console/w/${ws}/webhooks`);
    await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
    await page.getByLabel("Endpoint URL").fill(receiverUrl);
    await page.getByLabel("Name (optional)").fill(`receiver-${suffix}`);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByRole("button", { name: "Done" }).click();
    const before = received.length;
    await page.getByRole("button", { name: `Send test event to receiver-${suffix}` }).click();
    const dialog = page.getByRole("dialog", { name: "Test event" });
    await expect(dialog.getByText(/^Delivered: the endpoint answered 200 in \d+(\.\d+)? (ms|s)\.$/)).toBeVisible({
      timeout: 20_000,
    });
    expect(received.length).toBe(before + 1);
    const got = received.at(-1)!;
    expect(JSON.parse(got.body)).toMatchObject({ type: "webhook.test" });
    await expect(dialog.getByText(`POST ${receiverUrl}`)).toBeVisible();
    // The signature headers the receiver got are the ones shown.
    for (const h of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      await expect(dialog).toContainText(`${h}: ${String(got.headers[h])}`);
    }
    await expect(dialog).toContainText(got.body);
    await expect(dialog.getByText("Status 200")).toBeVisible();
    await expect(dialog).toContainText("x-receiver: loopback");
    await expect(dialog).toContainText(RECEIVER_SAYS);
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(dialog).toBeHidden();
  });

  await test.step("test an ai.generate binding: one max_tokens 1 call, the latency and the provider's answer", async () => {
    await page.goto(`/console/w/${ws}/credentials`);
    await page.getByLabel("Provider", { exact: true }).fill("openai");
    await page.getByLabel("Secret", { exact: true }).fill(API_KEY);
    await page.getByRole("button", { name: "Save credential" }).click();
    const saved = page.getByRole("status").filter({ hasText: "will not be shown again" });
    await expect(saved).toContainText(/Credential cred_[0-9a-z]{26} saved/);
    const credId = /cred_[0-9a-z]{26}/.exec((await saved.textContent()) ?? "")![0];

    await page.goto(`/console/w/${ws}/bindings`);
    await page.getByLabel("Credential", { exact: true }).selectOption(credId);
    await page.getByLabel("Name (optional)").fill(`model-${suffix}`);
    await page.getByLabel("Provider model for text").fill("gpt-e2e-mini");
    await page.getByLabel("Base URL").fill(provider!.baseUrl);
    await page.getByRole("button", { name: "Create binding" }).click();
    await expect(page.getByRole("status").filter({ hasText: /Binding bind_[0-9a-z]{26} is ready/ })).toBeVisible();

    const calls = provider!.calls.length;
    await page.getByRole("button", { name: `Test binding model-${suffix}` }).click();
    const dialog = page.getByRole("dialog", { name: `Test binding model-${suffix}` });
    await expect(dialog.getByText(/^openai answered in \d+(\.\d+)? (ms|s)$/)).toBeVisible({ timeout: 20_000 });
    await expect(dialog).toContainText(`Model gpt-e2e-mini: “${ANSWER}”`);
    expect(provider!.calls.length).toBe(calls + 1);
    expect(provider!.calls.at(-1)).toMatchObject({ authorized: true, body: { model: "gpt-e2e-mini", max_tokens: 1 } });
    await dialog.getByRole("button", { name: "Close" }).click();
  });
});
