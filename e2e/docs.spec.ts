import { expect, test } from "./support/fixtures";

test.describe("public API surface", () => {
  test("/docs renders the API reference with /v1/ operations", async ({ page }) => {
    const response = await page.goto("/docs");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: /Capstan API/ }).first()).toBeVisible();
    await expect(page.getByText(/^\/v1\//).first()).toBeVisible();
  });

  test("/healthz answers ok", async ({ request }) => {
    const res = await request.get("/healthz");
    expect(res.status()).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok" });
  });

  test("/v1/openapi.json is an OpenAPI 3.1.0 document", async ({ request }) => {
    const res = await request.get("/v1/openapi.json");
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("json");
    const doc = (await res.json()) as { openapi?: string; paths?: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths ?? {}).some((p) => p.startsWith("/v1/"))).toBe(true);
  });
});
