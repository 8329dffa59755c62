import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { resetKeyCache } from "../../src/server/platform/crypto";
import { closeDb } from "../../src/server/platform/db/client";
import { resetEnvCache } from "../../src/server/platform/env";
import { reapUnder } from "./reap";
import { databaseUrlFor, quoteIdent, testAdminUrl, testDbMode, testRunId, testTemplateDb, withAdmin } from "./db";

/**
 * Setup file of the `int` vitest project: every test file gets its own
 * database (a clone of the migrated template in PostgreSQL mode, a fresh
 * embedded PGlite otherwise), its own data directory and master key.
 *
 * The environment is set synchronously at load time, before the test file's
 * own module code runs, so nothing can cache the outer environment; the
 * database itself is created in beforeAll (registered before the file's own
 * hooks, so it runs first).
 */
const mode = testDbMode();
const adminUrl = testAdminUrl();
const templateDb = testTemplateDb();
const dbName = `capstan_t_${testRunId() || "x"}_${randomBytes(8).toString("hex")}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "capstan-int-"));
let created = false;

if (mode === "postgres") {
  process.env.DATABASE_URL = databaseUrlFor(adminUrl, dbName);
} else {
  delete process.env.DATABASE_URL;
}
process.env.CAPSTAN_DATA_DIR = dataDir;
process.env.CAPSTAN_MASTER_KEY = randomBytes(32).toString("base64");
process.env.CAPSTAN_WORKERS = "0";
// Tests read Bridge records right after a call; batched mode has its own test.
process.env.CAPSTAN_BRIDGE_RECORDS ??= "sync";
process.env.LOG_LEVEL ??= "warn";
process.env.CAPSTAN_PUBLIC_URL = "http://localhost:3000";
resetEnvCache();
resetKeyCache();

beforeAll(async () => {
  if (mode !== "postgres") return;
  if (!templateDb) throw new Error("int global setup provided no template database");
  await withAdmin(async (c) => {
    await c.query(`CREATE DATABASE ${quoteIdent(dbName)} TEMPLATE ${quoteIdent(templateDb)}`);
  }, adminUrl);
  created = true;
});

afterAll(async () => {
  try {
    await closeDb();
  } finally {
    try {
      if (created) {
        await withAdmin(async (c) => {
          await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
        }, adminUrl);
      }
    } finally {
      // A deployment the file left running holds its directory (a tmpfs mount as root): EBUSY without this.
      reapUnder(dataDir);
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 3, retryDelay: 200 });
    }
  }
});
