import { spawn } from "node:child_process";
import path from "node:path";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/domain/identity/users.service";
import { db, getDb } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { ensureSigningKey } from "@/server/domain/signing-keys/jwt.service";
import { uniqueEmail } from "./support/api";
import { testDbMode } from "./support/db";
import { checkedFetch } from "./support/openapi-responses";
import { startServer, stopServer, type TServer } from "./support/spawn-server";

/**
 * Issue #33 item 3: exactly one first signing key however many processes start
 * at once. Two app servers and the CLI start together on a database with no
 * key; afterwards there is one live key, and every process verifies the
 * tokens every other one signed (by its JWKS and by answering with them).
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const servers: TServer[] = [];

beforeAll(async () => {
  await getDb();
});

afterAll(async () => {
  await Promise.all(servers.map((s) => stopServer(s)));
});

function runCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin/capstan.mjs"), ...args], {
      cwd: ROOT,
      env: { ...process.env, CAPSTAN_MIGRATE_ON_START: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

const liveKeys = () => db().signingKey.findMany({ where: { retiredAt: null } });

async function bridgeToken(server: TServer, clientId: string, secret: string): Promise<string> {
  const res = await checkedFetch(`http://127.0.0.1:${server.port}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: secret,
    }).toString(),
  });
  const body = (await res.json()) as { access_token: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.access_token;
}

describe.skipIf(testDbMode() !== "postgres")("the first signing key", () => {
  it("is made once by eight callers racing in one process", async () => {
    expect(await liveKeys()).toEqual([]);
    await Promise.all(Array.from({ length: 8 }, () => ensureSigningKey()));
    expect(await liveKeys()).toHaveLength(1);
    // Back to an empty database for the processes below (nothing has signed with it).
    await db().signingKey.deleteMany({});
  });

  it("is made once by two servers and the CLI starting together, and each verifies the others' tokens", async () => {
    expect(await liveKeys()).toEqual([]);
    // A person for the CLI to mint a token for; making one signs nothing.
    const email = uniqueEmail("first-start");
    const user = await createUser(
      { userId: null, correlationId: newId("evt") },
      { email, name: "First start", password: "correct horse battery staple" },
    );

    const [a, b, cli] = await Promise.all([
      startServer(),
      startServer(),
      runCli(["token", "--email", email, "--ttl", "10m"]),
    ]);
    servers.push(a, b);
    expect(cli.status, cli.stderr + cli.stdout).toBe(0);
    const cliToken = cli.stdout.trim();

    const keys = await liveKeys();
    expect(keys).toHaveLength(1);
    const kid = keys[0]!.kid;

    // The CLI's control token works on both servers; with it, a service identity for Bridge tokens.
    for (const s of [a, b]) {
      const r = await checkedFetch(`http://127.0.0.1:${s.port}/v1/workspaces`, {
        headers: { authorization: `Bearer ${cliToken}` },
      });
      expect(r.status, await r.clone().text()).toBe(200);
    }
    const wsRes = await checkedFetch(`http://127.0.0.1:${a.port}/v1/workspaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${cliToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "first start" }),
    });
    expect(wsRes.status).toBe(201);
    const ws = ((await wsRes.json()) as { id: string }).id;
    const prod = newId("prod");
    await db().product.create({
      data: {
        id: prod,
        name: prod,
        workspaceId: ws,
        inputRevisionId: newId("rev"),
        repoUrl: "https://example.com/app.git",
        ref: "main",
        createdBy: user.id,
      },
    });
    const siRes = await checkedFetch(`http://127.0.0.1:${b.port}/v1/workspaces/${ws}/service-identities`, {
      method: "POST",
      headers: { authorization: `Bearer ${cliToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "first-start", product_id: prod }),
    });
    expect(siRes.status, await siRes.clone().text()).toBe(201);
    const si = (await siRes.json()) as { id: string; client_secret: string };

    // Tokens from all three processes: the CLI's and one Bridge token from each server.
    const tokens = {
      cli: cliToken,
      a: await bridgeToken(a, si.id, si.client_secret),
      b: await bridgeToken(b, si.id, si.client_secret),
    };
    for (const [from, token] of Object.entries(tokens)) {
      expect(decodeProtectedHeader(token).kid, `${from}'s token`).toBe(kid);
      for (const s of [a, b]) {
        const jwks = (await (
          await checkedFetch(`http://127.0.0.1:${s.port}/.well-known/jwks.json`)
        ).json()) as JSONWebKeySet;
        expect(jwks.keys.map((k) => k.kid)).toEqual([kid]);
        const verified = await jwtVerify(token, createLocalJWKSet(jwks));
        expect(verified.payload.aud).toBe(from === "cli" ? "control" : "bridge");
      }
    }
    // And the servers accept each other's Bridge tokens: a Bridge call is authenticated (not 401) on both.
    for (const token of [tokens.a, tokens.b]) {
      for (const s of [a, b]) {
        const r = await checkedFetch(`http://127.0.0.1:${s.port}/v1/capabilities/data.kv/get`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ key: "/x" }),
        });
        expect(r.status, await r.clone().text()).not.toBe(401);
      }
    }
    expect(await liveKeys()).toHaveLength(1);
  });
});
