import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "@": path.resolve(import.meta.dirname, "src"),
  // The generated client (packages/client), imported by path: see docs/decisions.md.
  "@capstan/client": path.resolve(import.meta.dirname, "packages/client/src/index.ts"),
  // `server-only` throws outside a React Server environment.
  "server-only": path.resolve(import.meta.dirname, "test/support/empty.ts"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "node_modules/**"],
          environment: "node",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "int",
          include: ["src/**/*.int.test.ts", "test/**/*.int.test.ts"],
          environment: "node",
          globalSetup: ["test/support/global-setup.ts"],
          setupFiles: ["test/support/per-file-db.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
          // Two files at a time (vitest's default is one on a 2-core machine): most of a file's time is waiting on
          // PostgreSQL, sandboxes and child servers, so two overlap (45 -> 28 min for the suite on 2 cores; every
          // file has its own database, data directory and ports). CAPSTAN_INT_WORKERS overrides it.
          maxWorkers: Number(process.env.CAPSTAN_INT_WORKERS ?? 2),
        },
      },
    ],
  },
});
