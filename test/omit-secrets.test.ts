import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OMIT_SECRETS } from "@/server/platform/db/client";

/**
 * Issue #15 item 7: every sealed or hashed secret column is in Prisma's global
 * `omit` (src/server/platform/db/client.ts), so no query returns it unless it
 * opts back in. The columns are found by naming convention in the schema, so
 * a new `fooSealed` / `sealedFoo` / `secretHash` / `passwordHash` column
 * fails this test until it is omitted.
 */
const SECRET_COLUMN = /sealed|^(?:password|secret|previousSecret|token|clientSecret)Hash$/i;

function secretColumns(schema: string): string[] {
  const out: string[] = [];
  for (const m of schema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const model = m[1]!;
    const delegate = model[0]!.toLowerCase() + model.slice(1);
    for (const line of m[2]!.split("\n")) {
      const field = /^\s*(\w+)\s+String\??(\s|$)/.exec(line)?.[1];
      if (field && SECRET_COLUMN.test(field)) out.push(`${delegate}.${field}`);
    }
  }
  return out.sort();
}

describe("Prisma global omit covers every sealed or hashed column", () => {
  const schema = readFileSync(path.join(import.meta.dirname, "..", "prisma", "schema.prisma"), "utf8");
  const columns = secretColumns(schema);

  it("finds the known secret columns by convention (the rule is not vacuous)", () => {
    expect(columns).toEqual(
      expect.arrayContaining([
        "credential.secretSealed",
        "eventSubscription.secretSealed",
        "eventSubscription.previousSecretSealed",
        "signingKey.privateJwkSealed",
        "user.passwordHash",
        "serviceIdentity.secretHash",
        "serviceIdentity.previousSecretHash",
      ]),
    );
    // Integrity hashes are not secrets: the audit chain and content hashes stay readable.
    expect(columns).not.toContain("auditRecord.hash");
    expect(columns).not.toContain("revision.contractHash");
  });

  it("every one of them is omitted by default", () => {
    const omitted = Object.entries(OMIT_SECRETS as Record<string, Record<string, boolean>>).flatMap(([model, fields]) =>
      Object.entries(fields)
        .filter(([, on]) => on)
        .map(([f]) => `${model}.${f}`),
    );
    const missing = columns.filter((c) => !omitted.includes(c));
    expect(missing, `add these to OMIT_SECRETS in src/server/platform/db/client.ts: ${missing.join(", ")}`).toEqual([]);
  });
});
