#!/usr/bin/env node
// Operator CLI entry: runs src/cli/capstan.ts through tsx so it shares the
// service's code (database factory, token issuer) rather than copying it.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsx = require.resolve("tsx/cli", { paths: [root] });
const r = spawnSync(process.execPath, [tsx, "--tsconfig", path.join(root, "tsconfig.json"), path.join(root, "src/cli/capstan.ts"), ...process.argv.slice(2)], {
  stdio: "inherit",
  cwd: process.cwd(),
  env: { LOG_LEVEL: "warn", ...process.env },
});
process.exit(r.status ?? 1);
