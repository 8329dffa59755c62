import { ENV_DOCS, ENV_GROUPS, type TEnvDoc } from "./env.docs";

/** GitHub's anchor of a heading: lower case, spaces to dashes, punctuation dropped. */
const anchor = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, "")
    .replace(/ /g, "-");
const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** docs/configuration.md, rendered from ENV_DOCS (scripts/configuration-doc.ts writes it; a unit test compares). */
export function renderConfigurationDoc(): string {
  const entries = Object.entries<TEnvDoc>(ENV_DOCS);
  const out = [
    "# Configuration",
    "",
    "<!-- Generated from src/server/platform/env.docs.ts by `npm run docs:config`. Do not edit by hand: a unit test fails when this file is stale. -->",
    "",
    "Every setting is an environment variable, read once and validated at start (`src/server/platform/env.ts`): a bad value stops the",
    "process with a message naming the variable. Booleans take `1`/`0` or `true`/`false`. Settings that must be equal on every replica",
    "(`DATABASE_URL`, `CAPSTAN_MASTER_KEY`, `NEXTAUTH_SECRET`, `CAPSTAN_PUBLIC_URL`, the blob store and Redis) are listed in",
    "[Running more than one replica](operations.md#running-more-than-one-replica).",
    "",
    ...ENV_GROUPS.map((g) => `- [${g}](#${anchor(g)})`),
  ];
  for (const group of ENV_GROUPS) {
    out.push("", `## ${group}`, "", "| Variable | Default | Meaning |", "|---|---|---|");
    for (const [name, d] of entries.filter(([, d]) => d.group === group))
      out.push(`| \`${name}\` | ${cell(d.default)} | ${cell(d.doc)} |`);
  }
  return out.join("\n") + "\n";
}
