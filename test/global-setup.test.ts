import { afterEach, describe, expect, it } from "vitest";
import type { TestProject } from "vitest/node";
import setup from "./support/global-setup";

/**
 * Issue #15 item 11: the integration run fails when PostgreSQL does not
 * answer, instead of falling back to embedded PGlite and skipping the
 * PostgreSQL-only blocks. PGlite is an explicit choice (CAPSTAN_TEST_DB=pglite).
 */
const saved = {
  url: process.env.TEST_DATABASE_URL,
  db: process.env.CAPSTAN_TEST_DB,
  mode: process.env.CAPSTAN_TEST_DB_MODE,
};

afterEach(() => {
  for (const [k, v] of [
    ["TEST_DATABASE_URL", saved.url],
    ["CAPSTAN_TEST_DB", saved.db],
    ["CAPSTAN_TEST_DB_MODE", saved.mode],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

function fakeProject(): { project: TestProject; provided: Record<string, unknown> } {
  const provided: Record<string, unknown> = {};
  const project = {
    config: { root: process.cwd() },
    provide: (k: string, v: unknown) => (provided[k] = v),
  } as unknown as TestProject;
  return { project, provided };
}

describe("int global setup", () => {
  it("fails the run when PostgreSQL is unreachable (no silent PGlite fallback)", async () => {
    process.env.TEST_DATABASE_URL = "postgres://postgres@127.0.0.1:1/postgres";
    delete process.env.CAPSTAN_TEST_DB;
    const { project, provided } = fakeProject();
    await expect(setup(project)).rejects.toThrow(
      /PostgreSQL unreachable at postgres:\/\/postgres@127\.0\.0\.1:1\/postgres .*CAPSTAN_TEST_DB=pglite/,
    );
    expect(provided.dbMode).toBeUndefined();
  });

  it("runs on embedded PGlite only when asked for explicitly", async () => {
    process.env.TEST_DATABASE_URL = "postgres://postgres@127.0.0.1:1/postgres";
    process.env.CAPSTAN_TEST_DB = "pglite";
    const { project, provided } = fakeProject();
    await expect(setup(project)).resolves.toBeUndefined();
    expect(provided.dbMode).toBe("pglite");
  });
});
