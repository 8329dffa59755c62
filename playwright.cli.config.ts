import base from "./playwright.config";

/**
 * Only the CLI's end-to-end test (e2e/cli): it starts its own Capstan from a
 * fresh clone, so the shared e2e server is not needed.
 *   E2E_PORT=3180 npx playwright test -c playwright.cli.config.ts
 * (The full `npx playwright test` runs it too.)
 */
export default { ...base, testDir: "e2e/cli", webServer: undefined };
