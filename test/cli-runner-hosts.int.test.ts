import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { hostHandle } from "@/server/domain/runners/runner-hosts-admin.service";
import { db, getDb } from "@/server/platform/db/client";
import { ensureSigningKey } from "@/server/domain/signing-keys/jwt.service";
import { resetEnvCache } from "@/server/platform/env";
import { makeUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { startCliServer } from "./support/cli-server";

/**
 * `capstan runner-hosts ls|cordon|uncordon|drain` (issue #35 item 3): bin/capstan.mjs
 * in its own process against a real Capstan HTTP server, as a ws_platform admin
 * and as a workspace owner (refused, exit 1, nothing changed); --json output;
 * usage errors exit 2; a host named by id or by its registered name.
 */
const BIN = path.resolve(import.meta.dirname, "..", "bin", "capstan.mjs");
const home = mkdtempSync(path.join(os.tmpdir(), "capstan-cli-rh-"));
const name = `cli-host-${Math.random().toString(36).slice(2, 8)}:/nowhere`;
let server: Awaited<ReturnType<typeof startCliServer>>;
let admin: string;

type TRun = { code: number; stdout: string; stderr: string; json: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

function cli(args: string[], token: string): Promise<TRun> {
  return new Promise((resolve) => {
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      CAPSTAN_CONFIG: path.join(home, "profile.json"),
      CAPSTAN_URL: server.url,
      CAPSTAN_TOKEN: token,
    };
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: home, timeout: 120_000, env: env as unknown as NodeJS.ProcessEnv, encoding: "utf8" },
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
  });
}

beforeAll(async () => {
  server = await startCliServer();
  process.env.CAPSTAN_PUBLIC_URL = server.url;
  resetEnvCache();
  await getDb();
  // The platform owner (admin@example.com) is created by the app's boot.
  await bootBridgeApp();
  await ensureSigningKey();
  admin = await issueTokenForEmail("admin@example.com", 3600);
  await db().runnerHost.create({
    data: {
      id: name,
      endpoint: "http://127.0.0.1:9",
      capacity: 2,
      leaseExpiresAt: new Date(Date.now() + 600_000),
      sandbox: "gvisor",
    },
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(home, { recursive: true, force: true });
});

describe("capstan runner-hosts", { timeout: 180_000 }, () => {
  it("lists, cordons, uncordons and drains as a platform admin; --json carries the host", async () => {
    const ls = await cli(["runner-hosts", "ls", "--json"], admin);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.json.items.find((h: { name: string }) => h.name === name)).toMatchObject({
      id: hostHandle(name),
      state: "live",
      capacity: 2,
      sandbox: "gvisor",
    });
    const human = await cli(["runner-hosts", "ls"], admin);
    expect(human.stdout).toContain(`${hostHandle(name)}  live`);

    const cordon = await cli(["runner-hosts", "cordon", hostHandle(name), "--json"], admin);
    expect(cordon.code, cordon.stderr).toBe(0);
    expect(cordon.json).toMatchObject({ id: hostHandle(name), state: "cordoned" });
    expect((await db().runnerHost.findUniqueOrThrow({ where: { id: name } })).cordonedAt).not.toBeNull();

    // By its registered name, human output.
    const uncordon = await cli(["runner-hosts", "uncordon", name], admin);
    expect(uncordon.code, uncordon.stderr).toBe(0);
    expect(uncordon.stdout).toContain("takes new deployments again");
    expect((await db().runnerHost.findUniqueOrThrow({ where: { id: name } })).cordonedAt).toBeNull();

    const drain = await cli(["runner-hosts", "drain", hostHandle(name), "--json"], admin);
    expect(drain.code, drain.stderr).toBe(0);
    expect(["draining", "drained"]).toContain(drain.json.state);
    const row = await db().runnerHost.findUniqueOrThrow({ where: { id: name } });
    expect(row.drainingAt).not.toBeNull();
    expect(row.cordonedAt).not.toBeNull();
  });

  it("refuses a workspace owner (exit 1, problem in --json, nothing changed), an unknown host and bad usage", async () => {
    const owner = await makeUser();
    await db().runnerHost.update({
      where: { id: name },
      data: { cordonedAt: null, drainingAt: null, drainedAt: null },
    });
    const refused = await cli(["runner-hosts", "cordon", hostHandle(name), "--json"], owner.token);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatchObject({ exit_code: 1, status: 403 });
    expect((await db().runnerHost.findUniqueOrThrow({ where: { id: name } })).cordonedAt).toBeNull();

    const unknown = await cli(["runner-hosts", "drain", "no-such-host:/x"], admin);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No runner host is named no-such-host:/x");
    const missing = await cli(["runner-hosts", "drain", "rh_00000000000000000000", "--json"], admin);
    expect(missing.code).toBe(1);
    expect(missing.json.error.status).toBe(404);

    for (const args of [
      ["runner-hosts"],
      ["runner-hosts", "drain"],
      ["runner-hosts", "explode", "x"],
      ["runner-hosts", "ls", "extra"],
    ]) {
      const r = await cli(args, admin);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("usage: capstan runner-hosts");
    }
    expect((await cli(["runner-hosts", "ls"], "not-a-token")).code).toBe(4);
  });
});
