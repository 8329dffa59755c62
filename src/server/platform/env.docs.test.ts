import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ZEnv } from "./env";
import { ENV_DOCS } from "./env.docs";
import { renderConfigurationDoc } from "./env.docs.render";

const ROOT = path.resolve(import.meta.dirname, "../../..");

/** Variables of the machine or of tests, not Capstan settings. */
const NOT_SETTINGS = new Set([
  "AWS_REGION",
  "DISPLAY",
  "WAYLAND_DISPLAY",
  "XDG_CONFIG_HOME",
  "PATH",
  "NEXT_RUNTIME",
  "TEST_DATABASE_URL",
  "TEST_STEPS",
]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return name === "generated" ? [] : sources(p);
    return /\.(ts|tsx|mjs)$/.test(name) && !/\.test\.ts$/.test(name) ? [p] : [];
  });
}

describe("the configuration reference", () => {
  it("docs/configuration.md is what `npm run docs:config` writes", () => {
    const committed = readFileSync(path.join(ROOT, "docs/configuration.md"), "utf8");
    expect(committed, "docs/configuration.md is stale: run `npm run docs:config` and commit it").toBe(
      renderConfigurationDoc(),
    );
  });

  it("documents every variable the code reads", () => {
    const read = new Set<string>();
    for (const file of [...sources(path.join(ROOT, "src")), ...sources(path.join(ROOT, "scripts"))]) {
      for (const m of readFileSync(file, "utf8").matchAll(
        /process\.env(?:\.([A-Z][A-Z0-9_]+)|\["([A-Z][A-Z0-9_]+)"\])/g,
      ))
        read.add((m[1] ?? m[2])!);
    }
    for (const key of Object.keys(ZEnv.shape)) read.add(key);
    const undocumented = [...read].filter((k) => !NOT_SETTINGS.has(k) && !(k in ENV_DOCS));
    expect(undocumented, "add these to src/server/platform/env.docs.ts").toEqual([]);
  });

  it("states each schema default as the schema has it", () => {
    const wrong: string[] = [];
    for (const [key, schema] of Object.entries(ZEnv.shape)) {
      const def = (schema as { def: { type: string; defaultValue?: unknown } }).def;
      if (def.type !== "default") continue;
      const value = def.defaultValue;
      // Booleans are written 0/1 (or false/true); computed defaults (e.g. from AWS_REGION) are described in words.
      const literal =
        typeof value === "boolean"
          ? null
          : typeof value === "string" || typeof value === "number"
            ? String(value)
            : null;
      if (literal === null || literal === "") continue;
      if (!ENV_DOCS[key as keyof typeof ENV_DOCS].default.includes(literal))
        wrong.push(`${key}: schema ${literal}, documented ${ENV_DOCS[key as keyof typeof ENV_DOCS].default}`);
    }
    expect(wrong).toEqual([]);
  });
});
