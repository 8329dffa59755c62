/**
 * Writes the OpenAPI document the code produces (what /v1/openapi.json
 * serves, with a fixed server URL) to the path given, or to stdout.
 * `npx tsx --conditions=react-server scripts/openapi-dump.ts /tmp/openapi.json`
 */
import { writeFileSync } from "node:fs";
import { buildOpenApiDocument } from "@/server/http/openapi";

export const DUMP_BASE_URL = "http://localhost:3000";

const text = JSON.stringify(buildOpenApiDocument(DUMP_BASE_URL), null, 2) + "\n";
const out = process.argv[2];
if (out) writeFileSync(out, text);
else process.stdout.write(text);
