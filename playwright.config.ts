import { defineConfig, devices, type ReporterDescription } from "@playwright/test";

/**
 * End-to-end tests against `npm start` (scripts/start.mjs builds first if
 * needed) on port 3100 (E2E_PORT changes it, e.g. for two checkouts side by side). With E2E_DATABASE_URL set the server uses that
 * PostgreSQL database; otherwise the embedded PGlite under .data-e2e/.
 * Chromium comes from Debian (/usr/bin/chromium): never `playwright install`.
 */
const PORT = Number((process.env.E2E_PORT ??= "3100"));
const BASE_URL = `http://127.0.0.1:${PORT}`;
const E2E_DNS_PORT = (process.env.E2E_DNS_PORT ??= "5399");
/** Browsers resolve every name under this domain to the e2e server. */
const E2E_APPS_DOMAIN = "apps.e2e.example.com";
// The invitations e2e receives the platform's mail on this loopback SMTP port (default: DNS port + 100).
const E2E_SMTP_PORT = (process.env.E2E_SMTP_PORT ??= String(Number(E2E_DNS_PORT) + 100));

const reporter: ReporterDescription[] = [["list"]];
if (process.env.PW_JSON_OUTPUT) reporter.push(["json", { outputFile: process.env.PW_JSON_OUTPUT }]);

const serverEnv: Record<string, string> = {
  NODE_ENV: "production",
  PORT: String(PORT),
  HOST: "127.0.0.1",
  CAPSTAN_DATA_DIR: ".data-e2e",
  BOOTSTRAP_ADMIN_EMAIL: "admin@example.com",
  BOOTSTRAP_ADMIN_PASSWORD: "e2e-admin-password",
  NEXTAUTH_SECRET: "e2e-nextauth-secret-not-for-production-0123456789",
  NEXTAUTH_URL: BASE_URL,
  CAPSTAN_PUBLIC_URL: BASE_URL,
  // The products e2e freezes a git repository it builds on local disk.
  SOURCE_ALLOW_LOCAL: "1",
  // The bridge-calls e2e binds ai.generate to an OpenAI-compatible server the
  // test starts on 127.0.0.1 (http): allow loopback provider base URLs.
  CAPSTAN_PROVIDER_ALLOW_PRIVATE: "1",
  // The test-buttons e2e sends a webhook test event to a receiver on 127.0.0.1 (http).
  CAPSTAN_WEBHOOK_ALLOW_PRIVATE: "1",
  // The domains e2e serves DNS on this loopback port; the domain worker asks it.
  CAPSTAN_DNS_SERVERS: `127.0.0.1:${E2E_DNS_PORT}`,
  CAPSTAN_DNS_TIMEOUT_MS: "500",
  CAPSTAN_DOMAIN_CNAME_TARGET: "edge.capstan.test",
  // The platform's mail (invitations) goes to the SMTP server the invitations e2e starts.
  CAPSTAN_SMTP_URL: `smtp://127.0.0.1:${E2E_SMTP_PORT}`,
  CAPSTAN_MAIL_FROM: "Capstan <no-reply@capstan.test>",
  // The production e2e promotes a release to production on the local runner, which cannot enforce isolated-vm.
  CAPSTAN_ALLOW_UNENFORCED_PRODUCTION: "1",
};
if (process.env.E2E_DATABASE_URL) {
  serverEnv.DATABASE_URL = process.env.E2E_DATABASE_URL;
} else {
  // Playwright merges process.env into the server's environment: make sure
  // an outer DATABASE_URL does not leak in, so the embedded PGlite is used.
  delete process.env.DATABASE_URL;
}

export default defineConfig({
  testDir: "e2e",
  // Hosted apps started by the e2e server outlive it by design; none may outlive the run.
  globalTeardown: "./e2e/support/global-teardown.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter,
  outputDir: "test-results",
  use: {
    ...devices["Desktop Chrome"],
    baseURL: BASE_URL,
    headless: true,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        // Custom domains of the e2e apps resolve to the e2e server (the production spec opens the app on its own domain).
        `--host-resolver-rules=MAP *.${E2E_APPS_DOMAIN} 127.0.0.1`,
      ],
    },
  },
  projects: [{ name: "chromium" }],
  webServer: {
    command: "node scripts/start.mjs",
    url: `${BASE_URL}/readyz`,
    env: serverEnv,
    // scripts/start.mjs builds first when the build is stale: a cold `next build` takes up to ~12 min on a busy 2-core machine.
    timeout: 900_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});
