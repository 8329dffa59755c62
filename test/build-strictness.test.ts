/**
 * Issue #15 item 9: the build is strict. The TypeScript build errors are not ignored, ESLint is
 * type-aware on every TypeScript file (floating and misused promises are errors), client code
 * cannot import server runtime code, and the server entry points are marked `server-only`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const eslint = new ESLint({ cwd: root });
// Type-aware linting builds the TypeScript program first: slow on a busy 2-core machine.
const LINT_TIMEOUT_MS = 240_000;

type TRuleEntry = string | number | [string | number, ...unknown[]];
const severity = (entry: TRuleEntry | undefined) => (Array.isArray(entry) ? entry[0] : entry);

describe("build strictness", () => {
  it("does not ignore TypeScript errors in the Next.js build", async () => {
    const config = (await import(path.join(root, "next.config.mjs"))) as {
      default: { typescript?: { ignoreBuildErrors?: boolean } };
    };
    expect(config.default.typescript?.ignoreBuildErrors ?? false).toBe(false);
  });

  it.each([
    "src/server/bridge/handler.ts",
    "src/server/domain/billing/wallet.service.ts",
    "src/components/console/billing/billing-view.tsx",
    "test/durability.int.test.ts",
  ])(
    "lints %s with type information and the promise rules on",
    async (file) => {
      const config = (await eslint.calculateConfigForFile(path.join(root, file))) as {
        rules: Record<string, TRuleEntry>;
        languageOptions: { parserOptions?: { projectService?: boolean } };
      };
      expect(config.languageOptions.parserOptions?.projectService).toBe(true);
      for (const rule of ["no-floating-promises", "no-misused-promises", "await-thenable"]) {
        expect([2, "error"], rule).toContain(severity(config.rules[`@typescript-eslint/${rule}`]));
      }
    },
    LINT_TIMEOUT_MS,
  );

  it("keeps `any` out of server code (the no-unsafe-* rules are errors in src/server)", async () => {
    const config = (await eslint.calculateConfigForFile(path.join(root, "src/server/bridge/pipeline.ts"))) as {
      rules: Record<string, TRuleEntry>;
    };
    for (const rule of [
      "no-unsafe-assignment",
      "no-unsafe-member-access",
      "no-unsafe-call",
      "no-unsafe-return",
      "no-unsafe-argument",
    ]) {
      expect([2, "error"], rule).toContain(severity(config.rules[`@typescript-eslint/${rule}`]));
    }
  });

  it(
    "refuses a floating promise in server code",
    async () => {
      const file = path.join(root, "src/server/platform/lifecycle.ts");
      const source = `${readFileSync(file, "utf8")}\nexport function __probe(): void {\n  Promise.resolve(1);\n}\n`;
      const [result] = await eslint.lintText(source, { filePath: file });
      expect(result!.messages.map((m) => m.ruleId)).toContain("@typescript-eslint/no-floating-promises");
    },
    LINT_TIMEOUT_MS,
  );

  it(
    "refuses a client component importing server runtime code, and allows types and pure modules",
    async () => {
      const file = path.join(root, "src/components/console/billing/billing-view.tsx");
      const original = readFileSync(file, "utf8");
      const probe = (line: string) => `${line}\n${original}`;
      const [bad] = await eslint.lintText(
        probe('import { db } from "@/server/platform/db/client";\nexport const __probe = db;'),
        { filePath: file },
      );
      expect(bad!.messages.map((m) => m.ruleId)).toContain("@typescript-eslint/no-restricted-imports");
      const [ok] = await eslint.lintText(
        probe(
          'import type { TRole } from "@/server/domain/identity/workspace-access.service";\nexport type __Probe = TRole;',
        ),
        { filePath: file },
      );
      expect(ok!.messages.filter((m) => m.ruleId === "@typescript-eslint/no-restricted-imports")).toEqual([]);
    },
    LINT_TIMEOUT_MS,
  );

  it.each([
    "src/server/trpc/root.ts",
    "src/server/trpc/context.ts",
    "src/server/auth/options.ts",
    "src/server/auth/console-principal.ts",
    "src/server/http/rest-handler.ts",
    "src/server/http/trpc-handler.ts",
  ])("marks %s server-only", (file) => {
    expect(readFileSync(path.join(root, file), "utf8")).toMatch(/^import "server-only";$/m);
  });
});
