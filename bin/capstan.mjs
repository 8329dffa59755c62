#!/usr/bin/env node
// Operator CLI entry. From the TypeScript source through tsx when tsx is
// installed (a development checkout: always the code you are editing), else
// the production build (dist/cli.mjs from `npm run build`, what an image with
// `npm ci --omit=dev` has). Either way in this process, so signals reach it.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = path.join(root, "src", "cli", "capstan.ts");
const built = path.join(root, "dist", "cli.mjs");

function hasTsx() {
  try {
    require.resolve("tsx/esm/api", { paths: [root] });
    return true;
  } catch {
    return false;
  }
}

process.env.LOG_LEVEL ??= "warn";
if (existsSync(source) && hasTsx()) {
  const { register } = await import("tsx/esm/api");
  register({ tsconfig: path.join(root, "tsconfig.json") });
  await import(pathToFileURL(source).href);
} else if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  console.error(
    "capstan: no dist/cli.mjs: run `npm run build` first (or install the dev dependencies to run from source)",
  );
  process.exit(1);
}
