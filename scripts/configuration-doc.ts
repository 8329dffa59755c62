/**
 * Writes docs/configuration.md from the configuration reference
 * (src/server/platform/env.docs.ts): `npm run docs:config`.
 * src/server/platform/env.docs.test.ts fails when the file is stale.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { renderConfigurationDoc } from "../src/server/platform/env.docs.render";

const file = path.resolve(import.meta.dirname, "../docs/configuration.md");
writeFileSync(file, renderConfigurationDoc());
console.log(`wrote ${path.relative(process.cwd(), file)}`);
