import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", ".data/", "src/generated/", "next-env.d.ts", "test-results/", "playwright-report/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": ["error", { allow: ["warn", "error"] }],
    },
  },
  {
    files: ["scripts/**", "bin/**", "bench/**", "e2e/**", "test/**", "examples/**"],
    rules: { "no-console": "off" },
  },
  {
    // Tests reach the HTTP handlers through test/support/handlers.ts, which checks every response against /v1/openapi.json.
    files: ["test/**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: ["@/server/bridge/handler", "@/server/bridge/runner-handler", "@/server/http/evidence-handler", "@/server/http/oauth-token-handler", "@/server/http/rest-handler", "@/server/http/uploads-handler"]
          .map((name) => ({ name, importNames: ["handleBridge", "handleRunnerInvocation", "handleEvidenceDownload", "handleOAuthToken", "handleRest", "handleUpload"], message: "import it from ./support/handlers: its responses are checked against /v1/openapi.json" })),
      }],
    },
  },
  {
    // e2e specs take `test` from e2e/support/fixtures.ts, whose request, page and capstan check every API response against /v1/openapi.json.
    files: ["e2e/**/*.spec.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: [{ name: "@playwright/test", importNames: ["test"], message: "import { test, expect } from e2e/support/fixtures: API responses are checked against /v1/openapi.json there" }],
      }],
    },
  },
  {
    // The hosted-app fixture is a plain CommonJS Node program, as an app author would write it.
    files: ["test/fixtures/**/*.js"],
    languageOptions: { sourceType: "commonjs", globals: { require: "readonly", fetch: "readonly", AbortSignal: "readonly", setTimeout: "readonly" } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
