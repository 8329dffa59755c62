// `npm run worker`: the worker process (roles worker,runner by default; see
// src/server/workers/main.ts). From the production build (dist/worker.mjs,
// `npm run build`) when tsx is not installed (`npm ci --omit=dev`), else from
// the TypeScript source through tsx's loader, in this same process (so a
// signal to this process is the worker's). npm does not relay SIGTERM: this
// process follows its parent (./follow-parent.mjs). In production run
// `node dist/worker.mjs` itself.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { followParent } from "./follow-parent.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const source = path.join(root, "src", "server", "workers", "main.ts");
const built = path.join(root, "dist", "worker.mjs");

function hasTsx() {
  try {
    require.resolve("tsx/esm/api", { paths: [root] });
    return true;
  } catch {
    return false;
  }
}

followParent({ log: (msg) => console.log(`[worker] ${msg}`) });
if (existsSync(source) && hasTsx()) {
  const { register } = await import("tsx/esm/api");
  register({ tsconfig: path.join(root, "tsconfig.json") });
  await import(pathToFileURL(source).href);
} else if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  console.error(
    "[worker] no dist/worker.mjs: run `npm run build` first (or install the dev dependencies to run from source)",
  );
  process.exit(1);
}
