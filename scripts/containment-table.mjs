#!/usr/bin/env node
// Puts the containment table written by the hostile-app suite
// (test/hostile-isolation.int.test.ts -> test-results/containment.json) into
// docs/hosted-apps.md, between the containment-table markers. Run after the suite:
//   npx vitest run --project int test/hostile-isolation.int.test.ts && node scripts/containment-table.mjs
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const source = process.argv[2] ?? path.join(root, "test-results", "containment.json");
const readme = path.join(root, "docs", "hosted-apps.md");
const START = "<!-- containment-table:start (scripts/containment-table.mjs writes this) -->";
const END = "<!-- containment-table:end -->";

const { markdown } = JSON.parse(readFileSync(source, "utf8"));
if (typeof markdown !== "string" || !markdown.includes("| Attempt |")) {
  console.error(`${source} has no containment table`);
  process.exit(1);
}
const text = readFileSync(readme, "utf8");
const from = text.indexOf(START);
const to = text.indexOf(END);
if (from < 0 || to < from) {
  console.error(`docs/hosted-apps.md has no ${START} ... ${END} block`);
  process.exit(1);
}
writeFileSync(readme, `${text.slice(0, from + START.length)}\n${markdown}\n${text.slice(to)}`);
console.log(`docs/hosted-apps.md: containment table from ${path.relative(root, source)}`);
