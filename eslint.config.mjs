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
    files: ["scripts/**", "bin/**", "bench/**", "e2e/**", "test/**"],
    rules: { "no-console": "off" },
  },
  {
    // The hosted-app fixture is a plain CommonJS Node program, as an app author would write it.
    files: ["test/fixtures/**/*.js"],
    languageOptions: { sourceType: "commonjs", globals: { require: "readonly", fetch: "readonly", AbortSignal: "readonly", setTimeout: "readonly" } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
