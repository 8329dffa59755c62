import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { reapUnder } from "../../test/support/reap";
import { expect, test } from "../support/fixtures";

/**
 * A first deployed app in two minutes (issue #39), as a new developer does it
 * with only the README: a fresh clone of this repository with the embedded
 * database, `npm start` on a non-default port (no URL settings: they follow
 * the port), `capstan login`, `capstan init` in a new 10-line app, `capstan
 * deploy`, the printed URL answering and counting visits through data.kv,
 * `capstan logs`, `capstan stop`. The clone is built first (the first build
 * is not part of the figure); everything after that is timed and written to
 * test-results/first-app.json, never asserted (speed is a benchmark's job).
 *
 * The clone lives in $TMPDIR/capstan-clone-<port> and is reused while HEAD
 * has not moved (its build with it); its database is removed before every run.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const PORT = Number(process.env.E2E_PORT ?? "3100") + 7;
// Outside the checkout (its TypeScript would join this one's) and short (the runner's Unix sockets live under it).
const CLONE = path.join(os.tmpdir(), `capstan-clone-${PORT}`);
const BASE = `http://localhost:${PORT}`;

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): void {
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", timeout: 20 * 60_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
}

/** The environment a person has: none of the e2e server's settings (no database URL, no URLs, no port). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(CAPSTAN_|NEXTAUTH_|DATABASE_URL|PORT$|HOST$|SOURCE_|BOOTSTRAP_|E2E_|NODE_ENV$)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra } as NodeJS.ProcessEnv;
}

function freshClone(): void {
  const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  const cloneHead = existsSync(CLONE)
    ? spawnSync("git", ["rev-parse", "HEAD"], { cwd: CLONE, encoding: "utf8" }).stdout.trim()
    : "";
  if (cloneHead !== head || !existsSync(path.join(CLONE, ".next", "BUILD_ID"))) {
    rmSync(CLONE, { recursive: true, force: true });
    run("git", ["clone", "--quiet", "--no-hardlinks", ROOT, CLONE], ROOT);
    run("git", ["checkout", "--quiet", head], CLONE);
    // `npm install` would fetch the same packages: hard links of this checkout's (never edited).
    run("cp", ["-al", path.join(ROOT, "node_modules"), path.join(CLONE, "node_modules")], ROOT);
    run("npm", ["run", "build"], CLONE, cleanEnv());
  }
  rmSync(path.join(CLONE, ".data"), { recursive: true, force: true });
}

type TCli = { code: number; stdout: string; stderr: string; json: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

function capstan(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<TCli> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [path.join(CLONE, "bin", "capstan.mjs"), ...args],
      { cwd, env, encoding: "utf8", timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr, json });
      },
    );
    child.stdin?.end();
  });
}

/** GET through the surface's own host (srf-….localhost resolves to loopback in a browser; Node is told where it is). */
function getViaHost(url: string): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: Number(u.port), path: u.pathname, headers: { host: u.host } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | null | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe().catch(() => null);
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test("a fresh clone: npm start -p, capstan login, init, deploy, the URL counts visits, logs, stop", async () => {
  test.setTimeout(30 * 60_000);
  freshClone();
  const home = mkdtempSync(path.join(os.tmpdir(), "capstan-first-app-"));
  const env = cleanEnv({ HOME: home, CAPSTAN_CONFIG: path.join(home, "profile.json") });
  const steps: Record<string, number> = {};
  let server: ChildProcess | undefined;
  const output: string[] = [];
  try {
    const t0 = Date.now();
    const mark = (step: string) => (steps[step] = Date.now() - t0);

    // npm start on a non-default port: the URLs follow it, the banner names it.
    server = spawn("npm", ["start", "--", "-p", String(PORT)], {
      cwd: CLONE,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    server.stdout!.on("data", (c: Buffer) => output.push(c.toString()));
    server.stderr!.on("data", (c: Buffer) => output.push(c.toString()));
    await until("/readyz", 180_000, async () => (await fetch(`${BASE}/readyz`)).ok);
    mark("server_ready");
    await until("the banner", 5_000, async () => output.join("").includes(`ready on ${BASE}`));
    expect(output.join("")).toContain(`Sign in at ${BASE}/signin`);
    expect(output.join("")).not.toContain("localhost:3000");

    // capstan login with a pasted token (the operator's `capstan token` on the server's machine).
    const token = await capstan(["token", "--email", "admin@example.com", "--ttl", "1h"], CLONE, env);
    expect(token.code, token.stderr).toBe(0);
    const login = await capstan(["login", "--url", BASE, "--token", token.stdout.trim(), "--json"], home, env);
    expect(login.code, login.stderr).toBe(0);
    expect(login.json).toMatchObject({ url: BASE, workspace_name: "apps" });
    mark("logged_in");

    // A new 10-line app; capstan init writes its contract.
    const app = path.join(home, "visits");
    mkdirSync(app);
    writeFileSync(
      path.join(app, "package.json"),
      JSON.stringify({ name: "visits", version: "1.0.0", scripts: { start: "node server.js" } }, null, 2),
    );
    writeFileSync(
      path.join(app, "server.js"),
      [
        'const http = require("node:http");',
        "http.createServer(async (req, res) => {",
        "  const r = await fetch(`${process.env.CAPSTAN_BRIDGE_URL}/v1/capabilities/data.kv/increment`, {",
        '    method: "POST", headers: { "content-type": "application/json" },',
        '    body: JSON.stringify({ key: "/app/visits" }),',
        "  });",
        "  const { output } = await r.json();",
        "  res.end(`visit number ${output.value}\\n`);",
        "}).listen(Number(process.env.PORT));",
        "",
      ].join("\n"),
    );
    const init = await capstan(["init", "--kv", "/app"], app, env);
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(app, "capabilities.json"), "utf8")).$schema).toBe(
      `${BASE}/capabilities.schema.json`,
    );
    const schema = await fetch(`${BASE}/capabilities.schema.json`);
    expect(schema.status).toBe(200);
    mark("initialised");

    // capstan deploy: frozen, confirmed, deployed, a URL printed.
    const deploy = await capstan(["deploy", "--yes", "--json"], app, env);
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(deploy.json).toMatchObject({
      status: "active",
      url: expect.stringMatching(new RegExp(`^http://srf-[0-9a-z]+\\.localhost:${PORT}/$`)),
    });
    mark("deployed");

    // The printed URL answers and counts visits (the health check and the reachability probe visited first).
    const a = await getViaHost(deploy.json.url);
    expect(a.status).toBe(200);
    const first = Number(/^visit number (\d+)\n$/.exec(a.body)?.[1]);
    expect(first).toBeGreaterThanOrEqual(1);
    expect((await getViaHost(deploy.json.url)).body).toBe(`visit number ${first + 1}\n`);
    expect(await (await fetch(deploy.json.path_url)).text()).toBe(`visit number ${first + 2}\n`);
    mark("visited");

    const logs = await capstan(["logs"], app, env);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain(`--- build log (${deploy.json.deployment_id}) ---`);
    const stop = await capstan(["stop"], app, env);
    expect(stop.code, stop.stderr).toBe(0);
    expect((await getViaHost(deploy.json.url)).status).toBe(410);
    mark("stopped");

    const figure = {
      total_ms: Date.now() - t0,
      steps,
      port: PORT,
      cores: os.cpus().length,
      loadavg_1m: os.loadavg()[0] ?? 0,
      at: new Date().toISOString(),
    };
    mkdirSync(path.join(ROOT, "test-results"), { recursive: true });
    writeFileSync(path.join(ROOT, "test-results", "first-app.json"), JSON.stringify(figure, null, 2) + "\n");
    console.log(
      `first app: ${(figure.total_ms / 1000).toFixed(1)} s from npm start to capstan stop (target 120 s); steps ${JSON.stringify(steps)}; load ${figure.loadavg_1m.toFixed(1)}`,
    );
  } finally {
    if (server?.pid) {
      try {
        process.kill(-server.pid, "SIGTERM");
      } catch {
        // already gone
      }
      await until(
        "npm start to stop",
        30_000,
        async () => server!.exitCode !== null || server!.signalCode !== null,
      ).catch(() => process.kill(-server!.pid!, "SIGKILL"));
    }
    // Hosted apps outlive Capstan by design; none may outlive the test.
    reapUnder(path.join(CLONE, ".data"));
    rmSync(home, { recursive: true, force: true });
  }
});
