// Runs `prisma generate` without the native schema engine, which cannot be
// downloaded on our machines: generation does not need it, only a path to an
// existing file (see ../shared/design/stack-notes.md).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let cli;
try {
  cli = require.resolve("prisma/build/index.js");
} catch {
  // A production install (`npm ci --omit=dev`) has no Prisma CLI and needs none:
  // the build (`npm run build`: .next and dist/) carries the generated client.
  console.log("[generate] the prisma CLI is not installed (production install): nothing to generate");
  process.exit(0);
}
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1" };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
const r = spawnSync(process.execPath, [cli, "generate"], { stdio: "inherit", env });
process.exit(r.status ?? 1);
