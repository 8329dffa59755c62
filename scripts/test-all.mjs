// `npm test`: every check the project has, in order, each streaming its own
// output. A failing step does not stop the run (the summary stays complete),
// but the exit code is non-zero if anything failed. The very last line is
// `N passed, N failed` (+ `, N skipped` when something was skipped).
//
// Steps: chromium, generate, typecheck, lint, format, openapi, unit, int, build, e2e.
// `openapi` is three checks of the API document the code produces: the
// linter (redocly.yaml, 0 errors), the generated client is current
// (`npm run client:generate` fixes it) and no breaking change against
// docs/openapi/v1-released.json (scripts/openapi.ts).
// Run a subset with TEST_STEPS=unit,int (or --only=unit,int). `chromium` is
// implied by `e2e`; `generate` (a second or two) always runs.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
const OUT = ".test-output";
const ALL = ["chromium", "generate", "typecheck", "lint", "format", "openapi", "unit", "int", "build", "e2e"];
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

// ---------------------------------------------------------------- selection
const onlyArg = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
const requested = (onlyArg ?? process.env.TEST_STEPS ?? "")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = requested.filter((s) => !ALL.includes(s));
if (unknown.length) {
  console.error(`test-all: unknown step(s) ${unknown.join(", ")}; steps are ${ALL.join(", ")}`);
  process.exit(2);
}
const selected = new Set(requested.length ? requested : ALL);
if (selected.has("e2e")) selected.add("chromium");
selected.add("generate");

// ---------------------------------------------------------------- helpers
let interrupted = false;
let current;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    // The child got the terminal's signal too (same process group); forward
    // it anyway for `kill <pid>`, then finish with a summary.
    interrupted = true;
    if (current && current.exitCode === null) current.kill(signal);
  });
}

function run(cmd, args, extraEnv = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: "inherit", cwd: root, env: { ...process.env, ...extraEnv } });
    current = child;
    child.on("error", (err) => {
      console.error(`test-all: could not run ${cmd}: ${err.message}`);
      resolve(127);
    });
    child.on("exit", (code, signal) => {
      current = undefined;
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

function readJson(file) {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    console.error(`test-all: could not parse ${file}: ${err.message}`);
    return undefined;
  }
}

/** A check that is one test: passed or failed by its exit code. */
async function single(cmd, args) {
  const code = await run(cmd, args);
  return code === 0
    ? { passed: 1, failed: 0, skipped: 0 }
    : { passed: 0, failed: 1, skipped: 0, note: `exit code ${code}` };
}

/** A prerequisite: counted only when it fails. */
function prerequisite(ok, note) {
  return ok ? { passed: 0, failed: 0, skipped: 0, note: "ok" } : { passed: 0, failed: 1, skipped: 0, note };
}

/** Exit code and report must agree: a non-zero exit without a failing test is one failure. */
function withExit(counts, code) {
  if (code !== 0 && counts.failed === 0) {
    return { ...counts, failed: 1, note: `exit code ${code} with no failing test (errors outside tests, see above)` };
  }
  return counts;
}

/** A failed file whose tests all passed (a hook, a load error, a worker that would not stop): say which, and why. */
function explainFileFailures(report) {
  for (const r of report.testResults ?? []) {
    if (r.status !== "failed") continue;
    console.error(
      `test-all: ${path.relative(root, r.name)} failed outside its tests: ${String(r.message ?? "(no message)").slice(0, 4000)}`,
    );
  }
}

/** What failed, one line each (file › test, or file and the reason it failed outside its tests), for the summary. */
function vitestFailures(report) {
  const out = [];
  for (const r of report.testResults ?? []) {
    const file = path.relative(root, r.name);
    const failed = (r.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failed) out.push(`${file} › ${a.fullName ?? a.title}`);
    if (r.status === "failed" && failed.length === 0)
      out.push(
        `${file} (outside its tests: ${String(r.message ?? "no message")
          .split("\n")[0]
          .slice(0, 200)})`,
      );
  }
  return out;
}

/** Playwright's JSON report: the titles of tests that did not end as expected. */
function playwrightFailures(report) {
  const out = [];
  const walk = (suite, trail) => {
    const here = suite.title ? [...trail, suite.title] : trail;
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status === "unexpected" || t.status === "flaky")
          out.push(`${[...here, spec.title].join(" › ")} (${t.status})`);
      }
    }
    for (const child of suite.suites ?? []) walk(child, here);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  return out;
}

async function vitest(project) {
  const file = path.join(OUT, `${project}.json`);
  rmSync(file, { force: true });
  const code = await run("npx", [
    "vitest",
    "run",
    "--project",
    project,
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${file}`,
  ]);
  const report = readJson(file);
  if (!report) return { passed: 0, failed: 1, skipped: 0, note: `no report at ${file} (exit code ${code})` };
  if (code !== 0 && !report.numFailedTests) explainFileFailures(report);
  return withExit(
    {
      passed: report.numPassedTests ?? 0,
      failed: report.numFailedTests ?? 0,
      skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
      failures: vitestFailures(report),
    },
    code,
  );
}

async function pgReachable() {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    await client.end().catch(() => undefined);
    return false;
  }
}

async function adminQuery(sql) {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}

// ---------------------------------------------------------------- steps
const steps = {
  async chromium() {
    if (existsSync("/usr/bin/chromium")) return prerequisite(true);
    if (process.getuid?.() !== 0) {
      console.error(
        "test-all: /usr/bin/chromium is missing and this is not root: install it with `sudo apt-get install -y chromium` (the e2e step needs it).",
      );
      return prerequisite(false, "/usr/bin/chromium missing (not root, cannot install)");
    }
    const code = await run("bash", ["-c", "apt-get update && apt-get install -y chromium"], {
      DEBIAN_FRONTEND: "noninteractive",
    });
    const ok = code === 0 && existsSync("/usr/bin/chromium");
    return prerequisite(ok, `apt-get install chromium failed (exit code ${code})`);
  },
  async generate() {
    const code = await run(process.execPath, ["scripts/prisma-generate.mjs"]);
    return prerequisite(code === 0, `prisma generate failed (exit code ${code})`);
  },
  typecheck: () => single("npx", ["tsc", "--noEmit"]),
  lint: () => single("npx", ["eslint", "."]),
  // Prettier (.prettierrc.json); `npm run format` fixes what this finds.
  format: () => single("npx", ["prettier", "--check", "--log-level=warn", "."]),
  async openapi() {
    const parts = [];
    for (const check of ["lint", "client-check", "breaking"])
      parts.push(await single("npx", ["tsx", "--conditions=react-server", "scripts/openapi.ts", check]));
    return parts.reduce((t, r) => ({ passed: t.passed + r.passed, failed: t.failed + r.failed, skipped: 0 }), {
      passed: 0,
      failed: 0,
      skipped: 0,
    });
  },
  unit: () => vitest("unit"),
  int: () => vitest("int"),
  build: () => single("npx", ["next", "build"]),
  async e2e() {
    const file = path.join(OUT, "e2e.json");
    rmSync(file, { force: true });
    rmSync(".data-e2e", { recursive: true, force: true });
    const extraEnv = { PW_JSON_OUTPUT: file };
    let dbName;
    if (await pgReachable()) {
      dbName = `capstan_e2e_${Date.now()}`;
      await adminQuery(`CREATE DATABASE "${dbName}"`);
      const u = new URL(ADMIN_URL);
      u.pathname = "/" + dbName;
      extraEnv.E2E_DATABASE_URL = u.toString();
      console.log(`test-all: e2e runs on PostgreSQL database ${dbName}`);
    } else {
      console.log(`test-all: PostgreSQL unreachable at ${ADMIN_URL}: e2e runs on embedded PGlite (.data-e2e)`);
    }
    let code;
    try {
      code = await run("npx", ["playwright", "test"], extraEnv);
    } finally {
      if (dbName) {
        await adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch((err) =>
          console.error(`test-all: could not drop ${dbName}: ${err.message}`),
        );
      }
    }
    const report = readJson(file);
    if (!report?.stats) return { passed: 0, failed: 1, skipped: 0, note: `no report at ${file} (exit code ${code})` };
    const s = report.stats;
    return withExit(
      {
        passed: s.expected ?? 0,
        failed: (s.unexpected ?? 0) + (s.flaky ?? 0),
        skipped: s.skipped ?? 0,
        failures: playwrightFailures(report),
      },
      code,
    );
  },
};

// ---------------------------------------------------------------- main
mkdirSync(OUT, { recursive: true });
const results = [];
for (const name of ALL) {
  if (!selected.has(name)) continue;
  if (interrupted) {
    results.push({ name, passed: 0, failed: 0, skipped: 0, note: "not run (interrupted)", ms: 0 });
    continue;
  }
  console.log(`\n━━━ ${name} ━━━`);
  const started = Date.now();
  let r;
  try {
    r = await steps[name]();
  } catch (err) {
    console.error(`test-all: step ${name} crashed: ${err?.stack ?? err}`);
    r = { passed: 0, failed: 1, skipped: 0, note: `crashed: ${err?.message ?? err}` };
  }
  results.push({ name, ...r, ms: Date.now() - started });
}

const total = results.reduce(
  (t, r) => ({ passed: t.passed + r.passed, failed: t.failed + r.failed, skipped: t.skipped + r.skipped }),
  { passed: 0, failed: 0, skipped: 0 },
);

console.log("\n━━━ summary ━━━");
for (const r of results) {
  const status = r.failed > 0 ? "FAIL" : r.note === "ok" || r.passed > 0 || r.skipped > 0 ? "ok  " : "-   ";
  const counts =
    r.note === "ok" ? "" : `${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ""}`;
  const secs = `${(r.ms / 1000).toFixed(1)}s`;
  const note = r.note && r.note !== "ok" ? `  (${r.note})` : "";
  console.log(`${status} ${r.name.padEnd(10)} ${counts.padEnd(34)} ${secs.padStart(7)}${note}`);
}
// What failed, again, right above the last line: CI logs are often read from their tail.
const failures = results.flatMap((r) => (r.failures ?? []).map((f) => `${r.name}: ${f}`));
if (failures.length) {
  console.log("\n━━━ failed ━━━");
  for (const f of failures.slice(0, 30)) console.log(`  ${f}`);
  if (failures.length > 30) console.log(`  … and ${failures.length - 30} more (see above)`);
}
console.log(`${total.passed} passed, ${total.failed} failed${total.skipped > 0 ? `, ${total.skipped} skipped` : ""}`);
process.exitCode = total.failed > 0 || interrupted ? 1 : 0;
