import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/server/platform/env";
import { runner } from "@/server/runtime";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { startCliServer } from "./support/cli-server";

/**
 * The developer CLI (`capstan login/init/deploy/logs/stop/...`, issue #39) as
 * a person or a script runs it: bin/capstan.mjs in its own process, without a
 * terminal, against a real Capstan HTTP server (workers ticking) on loopback.
 * Failure paths first: not logged in, server down, a refused token, a contract
 * that widens (asks; refuses without --yes), a build that fails.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "bin", "capstan.mjs");
const home = mkdtempSync(path.join(os.tmpdir(), "capstan-cli-"));
let server: Awaited<ReturnType<typeof startCliServer>>;
let owner: TTestUser;
let ws: string;
let n = 0;

type TRun = { code: number; stdout: string; stderr: string; json: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Runs the CLI without a terminal (stdin is /dev/null unless `input`), with its own profile file. */
function cli(
  args: string[],
  opts: { profile?: string; env?: Record<string, string>; cwd?: string; input?: string } = {},
): Promise<TRun> {
  return new Promise((resolve) => {
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      HOME: home,
      CAPSTAN_CONFIG: opts.profile ?? path.join(home, "profile.json"),
      ...opts.env,
    };
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: opts.cwd ?? home,
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
        env: env as NodeJS.ProcessEnv,
        encoding: "utf8",
      },
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
    child.stdin!.end(opts.input ?? "");
  });
}

/** A new app directory: a 10-line server that counts visits in data.kv, plus `files`. */
function appDir(files: Record<string, string> = {}): string {
  const dir = path.join(home, `app-${++n}`);
  mkdirSync(dir);
  const all: Record<string, string> = {
    "package.json": JSON.stringify({ name: `app-${n}`, version: "1.0.0", scripts: { start: "node server.js" } }),
    "package-lock.json": JSON.stringify({
      name: `app-${n}`,
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: { "": { name: `app-${n}`, version: "1.0.0" } },
    }),
    "server.js": [
      'require("node:http").createServer(async (req, res) => {',
      "  const r = await fetch(`${process.env.CAPSTAN_BRIDGE_URL}/v1/capabilities/data.kv/increment`, {",
      '    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ key: "/app/visits" }),',
      "  });",
      "  const { output } = await r.json();",
      "  res.end(`visit number ${output.value}\\n`);",
      "}).listen(Number(process.env.PORT));",
    ].join("\n"),
    ...files,
  };
  for (const [rel, content] of Object.entries(all)) writeFileSync(path.join(dir, rel), content);
  return dir;
}

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

beforeAll(async () => {
  server = await startCliServer();
  // Links the API hands out (surface URLs, the JWT issuer) name this server.
  process.env.CAPSTAN_PUBLIC_URL = server.url;
  resetEnvCache();
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token, "cli apps")).id;
  const login = await cli(["login", "--url", server.url, "--token", owner.token, "--workspace", ws, "--json"]);
  expect(login.code, login.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await runner().sweep(async () => new Set());
  rmSync(home, { recursive: true, force: true });
});

describe("help and usage", { timeout: 120_000 }, () => {
  it("--help prints both command sets and exits 0; an unknown command exits 2", async () => {
    for (const args of [["--help"], ["help"], []]) {
      const r = await cli(args);
      expect(r.code, args.join(" ")).toBe(0);
      expect(r.stdout).toContain("deploy [dir|repo-url]");
      expect(r.stdout).toContain("token --email");
    }
    expect((await cli(["deploy", "--help"])).code).toBe(0);
    const bad = await cli(["frobnicate"]);
    expect(bad.code).toBe(2);
    expect((await cli(["deploy", "--env", "moon"])).code).toBe(2);
  });
});

describe("not logged in", { timeout: 120_000 }, () => {
  it.each([
    ["whoami"],
    ["ls"],
    ["deploy", "."],
    ["logs", "dep_00000000000000000000000000"],
    ["stop", "dep_00000000000000000000000000"],
    ["open", "dep_00000000000000000000000000"],
  ])("%s exits 4 and says how to log in", async (...args) => {
    const r = await cli(args, { profile: path.join(home, "nobody.json"), cwd: appDir() });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/Not logged in: run `capstan login/);
  });

  it("a refused token is exit 4 at login and nothing is saved; --json carries the error", async () => {
    const profile = path.join(home, "refused.json");
    const r = await cli(["login", "--url", server.url, "--token", "not-a-jwt", "--json"], { profile });
    expect(r.code).toBe(4);
    expect(r.json.error).toMatchObject({ code: "unauthenticated", exit_code: 4 });
    expect(() => statSync(profile)).toThrow();
  });
});

describe("server down", { timeout: 120_000 }, () => {
  it("login, whoami and deploy exit 3 naming the URL", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const login = await cli(["login", "--url", url, "--token", owner.token]);
    expect(login.code).toBe(3);
    expect(login.stderr).toContain(`Cannot reach Capstan at ${url}`);
    const env = { CAPSTAN_URL: url };
    expect((await cli(["whoami"], { env })).code).toBe(3);
    const deploy = await cli(["deploy", appDir(), "--yes", "--url", url]);
    expect(deploy.code).toBe(3);
    expect(deploy.stderr).toContain("Is it running?");
  });
});

describe("login, whoami, init", { timeout: 120_000 }, () => {
  it("the profile is 0600 and whoami names the workspace and role", async () => {
    expect(statSync(path.join(home, "profile.json")).mode & 0o777).toBe(0o600);
    const r = await cli(["whoami", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ url: server.url, user_id: owner.userId, workspace: { id: ws, role: "owner" } });
  });

  it("a token piped on stdin logs in too", async () => {
    const profile = path.join(home, "piped.json");
    const r = await cli(["login", "--url", server.url, "--workspace", ws, "--json"], {
      profile,
      input: `${owner.token}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(profile, "utf8"))).toMatchObject({ url: server.url, workspace_id: ws });
  });

  it("init writes capabilities.json with its schema linked, and refuses to overwrite without --force", async () => {
    const dir = appDir();
    const r = await cli(["init", "--kv", "/app"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(path.join(dir, "capabilities.json"), "utf8"));
    expect(doc.$schema).toBe(`${server.url}/capabilities.schema.json`);
    expect(doc.capabilities).toEqual([
      expect.objectContaining({ id: "data.kv", scope: expect.objectContaining({ prefix: "/app" }) }),
    ]);
    expect((await cli(["init", "--kv", "/app"], { cwd: dir })).code).toBe(1);
    expect((await cli(["init", "--kv", "app"], { cwd: dir })).code).toBe(2);
    expect((await cli(["init", "--kv", "/other", "--force"], { cwd: dir })).code).toBe(0);
  });
});

// Each CLI run is a process of its own and a deploy runs a real build: minutes on a loaded 2-core machine.
describe("deploy", { timeout: 300_000 }, () => {
  it("a first deploy without a terminal and without --yes asks, refuses with exit 5, and deploys nothing", async () => {
    const dir = appDir();
    expect((await cli(["init", "--kv", "/app"], { cwd: dir })).code).toBe(0);
    const r = await cli(["deploy", "--json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("Deploy with this build plan?");
    expect(r.stderr).toContain("re-run with --yes");
    expect(r.json.error.code).toBe("confirmation_required");
    const ls = await cli(["ls", "--json"]);
    const link = JSON.parse(readFileSync(path.join(dir, ".capstan", "project.json"), "utf8"));
    expect(ls.json.products.find((p: { product_id: string }) => p.product_id === link.product_id).live).toEqual([]);
  });

  it("deploys a directory, prints a URL that answers and counts visits; logs, env, ls, open, stop", async () => {
    const dir = appDir();
    expect((await cli(["init", "--kv", "/app"], { cwd: dir })).code).toBe(0);
    const r = await cli(["deploy", "--yes", "--json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Detected build plan:");
    expect(r.stderr).toContain("data.kv: get, set, increment, delete, list under /app");
    expect(r.json).toMatchObject({
      status: "active",
      environment_type: "preview",
      url: expect.stringMatching(/^http:\/\/srf-/),
    });
    // The health check and the surface's reachability probe visit "/" too: count from the first answer.
    const visits = async () => Number(/^visit number (\d+)\n$/.exec(await (await fetch(r.json.path_url)).text())?.[1]);
    const first = await visits();
    expect(first).toBeGreaterThanOrEqual(1);
    expect(await visits()).toBe(first + 1);

    const logs = await cli(["logs"], { cwd: dir });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain(`--- build log (${r.json.deployment_id}) ---`);
    // The steps with their durations, then timestamped lines.
    expect(logs.stdout).toMatch(/^ {2}start +succeeded in \d+\.\d s$/m);
    expect(logs.stdout).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[capstan\] start: /m);
    const env = await cli(["env", "--json"], { cwd: dir });
    expect(env.json.env).toHaveProperty("CAPSTAN_BRIDGE_URL");
    expect(env.json.capabilities[0].id).toBe("data.kv");
    const ls = await cli(["ls", "--json"]);
    expect(ls.json.products.find((p: { product_id: string }) => p.product_id === r.json.product_id).live).toEqual([
      { deployment_id: r.json.deployment_id, environment_type: "preview", url: r.json.url },
    ]);
    expect((await cli(["open", "--json"], { cwd: dir })).json.url).toBe(r.json.url);

    // The same tree again: a new revision of the same product, the plan known, so no question asked.
    const again = await cli(["deploy", "--json"], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.product_id).toBe(r.json.product_id);
    expect(again.stderr).not.toContain("Detected build plan:");

    const stop = await cli(["stop", "--json"], { cwd: dir });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.json.status).toMatch(/superseded|stopped|failed|active/);
    expect((await fetch(again.json.path_url)).status).toBe(410);
  });

  it("a contract that widens asks: refused without --yes (exit 5, nothing deployed), deployed with it", async () => {
    const dir = appDir();
    expect((await cli(["init", "--kv", "/app"], { cwd: dir })).code).toBe(0);
    const first = await cli(["deploy", "--yes", "--json"], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect((await cli(["init", "--kv", "/app", "--storage", "/files", "--force"], { cwd: dir })).code).toBe(0);

    const refused = await cli(["deploy", "--json"], { cwd: dir });
    expect(refused.code, refused.stderr).toBe(5);
    expect(refused.stderr).toContain("The contract widens");
    expect(refused.stderr).toContain("Approve the wider contract?");
    const link = JSON.parse(readFileSync(path.join(dir, ".capstan", "project.json"), "utf8"));
    expect(link.last_deployment_id).toBe(first.json.deployment_id);

    const approved = await cli(["deploy", "--yes", "--json"], { cwd: dir });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toContain("storage.object: read, write, delete, list under /files");
    expect((await cli(["stop"], { cwd: dir })).code).toBe(0);
  });

  it("a build that fails: the log's last lines and the finding in words, exit 1", async () => {
    const dir = appDir({
      "package.json": JSON.stringify({
        name: "broken",
        version: "1.0.0",
        scripts: { build: "node build.js", start: "node server.js" },
      }),
      "build.js":
        "console.log('compiling 3 files');\nconsole.error('error TS2307: Cannot find module ./missing');\nprocess.exit(2);\n",
    });
    const r = await cli(["deploy", "--yes"], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("The deployment failed: the build step failed (build_failed)");
    expect(r.stderr).toContain("Last lines of the build log:");
    expect(r.stderr).toContain("error TS2307: Cannot find module ./missing");
    expect(r.stderr).toMatch(/✗ The build step `npm run build` /);
  });

  it("a source the freeze rejects is exit 1 with the reason", async () => {
    const dir = appDir({ "capabilities.json": JSON.stringify({ capabilities: [{ id: "data.sql" }] }) });
    const r = await cli(["deploy", "--yes", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "capabilities.json was rejected: capabilities.json names a capability Capstan does not have (unknown_capability)",
    );
  });
});

describe("mock-ai", { timeout: 120_000 }, () => {
  it("serves an OpenAI-compatible echo marked as not a real model, binds it while it runs, deletes the binding on Ctrl-C", async () => {
    const child = spawn(process.execPath, [BIN, "mock-ai", "--port", "0", "--json"], {
      cwd: home,
      env: {
        NODE_ENV: "production",
        PATH: process.env.PATH,
        HOME: home,
        CAPSTAN_CONFIG: path.join(home, "profile.json"),
      },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group: Ctrl-C in a terminal reaches every process of the command (bin/capstan.mjs and what it runs).
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const deadline = Date.now() + 60_000;
    while (!stdout.trim().endsWith("}")) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`mock-ai did not start: ${stdout} ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const started = JSON.parse(stdout) as { base_url: string; binding_id: string; not_a_real_model: boolean };
    expect(started.not_a_real_model).toBe(true);
    const chat = await fetch(`${started.base_url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "x", messages: [{ role: "user", content: "hello there" }] }),
    });
    expect(chat.headers.get("x-capstan-mock")).toBe("not-a-real-model");
    const answer = await chat.json();
    expect(answer.choices[0].message.content).toBe("[MOCK-NOT-A-REAL-MODEL] You said: hello there");
    expect(answer.usage.total_tokens).toBeGreaterThan(0);

    // Capstan's own binding test calls it through the real provider path.
    const test = await api("POST", `/v1/workspaces/${ws}/provider-bindings/${started.binding_id}/test`, {
      token: owner.token,
      body: {},
    });
    expect(test.status, test.text).toBe(200);
    expect(test.json.answer).toBe("[MOCK-NOT-A-REAL-MODEL]");

    process.kill(-child.pid!, "SIGINT");
    const until = Date.now() + 60_000;
    let status = "";
    while (status !== "revoked" && Date.now() < until) {
      status = (
        await api("GET", `/v1/workspaces/${ws}/provider-bindings/${started.binding_id}`, { token: owner.token })
      ).json.status;
      if (status !== "revoked") await new Promise((r) => setTimeout(r, 200));
    }
    expect(status, stderr).toBe("revoked");
    // It says so once it has also revoked the credential, a moment after the binding.
    while (!stderr.includes("Mock provider stopped") && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    expect(stderr).toContain("Mock provider stopped; its binding is deleted.");
  });
});
