/**
 * The API document's tooling, on the document the code produces (what
 * /v1/openapi.json serves, with a fixed server URL):
 *
 *   npm run client:generate    regenerate packages/client/src/schema.d.ts
 *   npm run openapi:check      lint + client current + no breaking change (CI)
 *   npm run openapi:release    record the current document as the released one
 *
 * `tsx scripts/openapi.ts <lint|client|client-check|breaking|check|release>`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { buildOpenApiDocument } from "@/server/http/openapi";
import { breakingChanges, versionVerdict } from "./openapi-breaking";

const root = path.resolve(import.meta.dirname, "..");
const CLIENT_TYPES = path.join(root, "packages/client/src/schema.d.ts");
const RELEASED = path.join(root, "docs/openapi/v1-released.json");
const BASE_URL = "http://localhost:3000";

type TDoc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const current = (): TDoc => buildOpenApiDocument(BASE_URL);

const BANNER =
  "/**\n * Generated from /v1/openapi.json by `npm run client:generate` (openapi-typescript).\n * Do not edit: CI fails when this file differs from what the code's document generates.\n */\n";

async function clientTypes(doc: TDoc): Promise<string> {
  return BANNER + astToString(await openapiTS(structuredClone(doc) as never, { alphabetize: false }));
}

/** `npx redocly lint` with ./redocly.yaml on a dump of the document: 0 when it reports no error. */
function lint(doc: TDoc): boolean {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "capstan-openapi-")), "openapi.json");
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const r = spawnSync(
    path.join(root, "node_modules/.bin/redocly"),
    ["lint", file, "--config", path.join(root, "redocly.yaml"), "--format=stylish"],
    {
      stdio: "inherit",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    },
  );
  console.log(r.status === 0 ? "openapi: lint: 0 errors" : `openapi: lint failed (exit code ${r.status})`);
  return r.status === 0;
}

async function clientCheck(doc: TDoc): Promise<boolean> {
  const want = await clientTypes(doc);
  const have = existsSync(CLIENT_TYPES) ? readFileSync(CLIENT_TYPES, "utf8") : "";
  if (want === have) {
    console.log("openapi: the generated client is current");
    return true;
  }
  const a = have.split("\n");
  const b = want.split("\n");
  const i = b.findIndex((line, n) => line !== a[n]);
  console.error(
    `openapi: packages/client/src/schema.d.ts is stale (first difference at line ${i + 1}: have ${JSON.stringify(a[i] ?? "<end>")}, want ${JSON.stringify(b[i] ?? "<end>")}).\n` +
      "Run `npm run client:generate` and commit packages/client/src/schema.d.ts.",
  );
  return false;
}

function breaking(doc: TDoc): boolean {
  if (!existsSync(RELEASED)) {
    console.error(
      `openapi: no released document at ${path.relative(root, RELEASED)} (npm run openapi:release records one)`,
    );
    return false;
  }
  const released = JSON.parse(readFileSync(RELEASED, "utf8")) as TDoc;
  const changes = breakingChanges(released, doc);
  const verdict = versionVerdict(String(released.info?.version), String(doc.info?.version), changes);
  for (const c of changes) console.log(`openapi: breaking: ${c}`);
  console.log(`openapi: ${verdict.message}`);
  return verdict.ok;
}

async function main(): Promise<void> {
  const cmd = process.argv[2] ?? "check";
  const doc = current();
  const ops = Object.values<TDoc>(doc.paths).reduce(
    (n, item) =>
      n + ["get", "put", "post", "delete", "patch", "head", "options", "trace"].filter((m) => item[m]).length,
    0,
  );
  console.log(
    `openapi: the document has ${ops} operations on ${Object.keys(doc.paths).length} paths (version ${doc.info.version})`,
  );
  let ok = true;
  switch (cmd) {
    case "lint":
      ok = lint(doc);
      break;
    case "client":
      writeFileSync(CLIENT_TYPES, await clientTypes(doc));
      console.log(`openapi: wrote ${path.relative(root, CLIENT_TYPES)}`);
      break;
    case "client-check":
      ok = await clientCheck(doc);
      break;
    case "breaking":
      ok = breaking(doc);
      break;
    case "check": {
      const results = [lint(doc), await clientCheck(doc), breaking(doc)];
      ok = results.every(Boolean);
      break;
    }
    case "release":
      mkdirSync(path.dirname(RELEASED), { recursive: true });
      writeFileSync(RELEASED, JSON.stringify(doc, null, 2) + "\n");
      console.log(`openapi: recorded ${path.relative(root, RELEASED)} (version ${doc.info.version})`);
      break;
    default:
      console.error(`openapi: unknown command ${cmd}; use lint, client, client-check, breaking, check or release`);
      ok = false;
  }
  process.exitCode = ok ? 0 : 1;
}

await main();
