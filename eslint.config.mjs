import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      // npm run build's bundles of the worker, runner and CLI (scripts/build-dist.mjs): generated.
      "dist/",
      ".data/",
      ".data-*/",
      "src/generated/",
      "next-env.d.ts",
      "test-results/",
      "playwright-report/",
      "packages/client/src/schema.d.ts",
    ],
  },
  js.configs.recommended,
  // Type-aware: a floating or misused promise, an `any` flowing into server code, an
  // object stringified as "[object Object]" are caught at lint time, not in production.
  ...tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  // Plain JavaScript (scripts, the hosted-app fixtures) is outside the TypeScript project.
  { files: ["**/*.js", "**/*.mjs", "**/*.cjs"], ...tseslint.configs.disableTypeChecked },
  {
    // A Promise-returning function without `await` is fine (a step of a pipeline of async steps).
    rules: { "@typescript-eslint/require-await": "off" },
  },
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
    // Tests and tooling read JSON bodies, which are `any` by nature (every API response a test
    // reads is validated against /v1/openapi.json instead). The promise rules stay on everywhere.
    // The OpenAPI document builder walks free-form JSON the same way.
    files: [
      "scripts/**",
      "bench/**",
      "e2e/**",
      "test/**",
      "examples/**",
      "**/*.test.ts",
      "src/server/http/openapi.ts",
      "src/server/http/openapi-normalize.ts",
    ],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      // Tests print whatever they got into failure messages on purpose.
      "@typescript-eslint/no-base-to-string": "off",
      "@typescript-eslint/restrict-template-expressions": "off",
    },
  },
  {
    // Client components run in the browser: from src/server they may take types, and values only
    // from the pure modules (contracts, state tables, capability rules, currencies). The server
    // entry points (tRPC root/context, REST and tRPC handlers, next-auth options) also import
    // `server-only`, so a client bundle that reached one would fail to build.
    files: ["src/components/**", "src/lib/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex:
                "^@/server/(?!.*\\.(contract|states)$|domain/source/contract-rules$|domain/source/source\\.types$|domain/billing/currencies$)",
              allowTypeImports: true,
              message:
                "client code may import types from src/server, and values only from its pure modules (*.contract, *.states, contract-rules, source.types, currencies)",
            },
          ],
        },
      ],
    },
  },
  {
    // Tests reach the HTTP handlers through test/support/handlers.ts, which checks every response against /v1/openapi.json.
    files: ["test/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            "@/server/bridge/handler",
            "@/server/bridge/runner-handler",
            "@/server/http/evidence-handler",
            "@/server/http/oauth-token-handler",
            "@/server/http/rest-handler",
            "@/server/http/uploads-handler",
          ]
            .map((name) => ({
              name,
              importNames: [
                "handleBridge",
                "handleRunnerInvocation",
                "handleEvidenceDownload",
                "handleOAuthToken",
                "handleRest",
                "handleUpload",
              ],
              message: "import it from ./support/handlers: its responses are checked against /v1/openapi.json",
            }))
            .concat([
              {
                name: "@/server/domain/deployments/surfaces.service",
                importNames: ["handleSurfaceRequest"],
                message: "import it from ./support/handlers: its problem documents are checked against their response",
              },
            ]),
        },
      ],
    },
  },
  {
    // e2e specs take `test` from e2e/support/fixtures.ts, whose request, page and capstan check every API response against /v1/openapi.json.
    files: ["e2e/**/*.spec.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@playwright/test",
              importNames: ["test"],
              message:
                "import { test, expect } from e2e/support/fixtures: API responses are checked against /v1/openapi.json there",
            },
          ],
        },
      ],
    },
  },
  {
    // The hosted-app fixture is a plain CommonJS Node program, as an app author would write it.
    files: ["test/fixtures/**/*.js"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { require: "readonly", fetch: "readonly", AbortSignal: "readonly", setTimeout: "readonly" },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
