import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processPendingFreezes } from "@/server/domain/source/freeze.service";
import { resetEnvCache } from "@/server/platform/env";
import { bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { checkedFetch } from "./support/openapi-responses";
import { startS3Server, type TS3Server } from "./support/s3-server";
import { startServer, stopServer, type TServer } from "./support/spawn-server";

/**
 * Replicas that share nothing but PostgreSQL and a bucket (issue #23 part 1):
 * two server processes with data folders of their own, on this file's
 * database and the project's S3 test server. What one replica stores, the
 * other serves (with the filesystem store each would only see its own folder).
 */
const BUCKET = "replicas";
let s3: TS3Server;
let owner: TTestUser;
let ws: string;
const servers: TServer[] = [];

type THttp = { status: number; json: any; body: Buffer }; // eslint-disable-line @typescript-eslint/no-explicit-any
async function call(
  s: TServer,
  method: string,
  p: string,
  opts: { body?: unknown; raw?: Buffer; type?: string } = {},
): Promise<THttp> {
  const headers: Record<string, string> = { authorization: `Bearer ${owner.token}` };
  let body: BodyInit | undefined;
  if (opts.raw) {
    body = new Uint8Array(opts.raw);
    headers["content-type"] = opts.type ?? "application/octet-stream";
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] = "application/json";
  }
  const res = await checkedFetch(`http://127.0.0.1:${s.port}${p}`, { method, headers, body });
  const buf = Buffer.from(await res.arrayBuffer());
  let json: unknown;
  try {
    json = JSON.parse(buf.toString("utf8"));
  } catch {
    json = undefined;
  }
  return { status: res.status, json, body: buf };
}

const s3Env = () => ({
  CAPSTAN_BLOB_S3_BUCKET: BUCKET,
  CAPSTAN_BLOB_S3_ENDPOINT: s3.endpoint,
  CAPSTAN_BLOB_S3_REGION: s3.region,
  CAPSTAN_BLOB_S3_FORCE_PATH_STYLE: "1",
  AWS_ACCESS_KEY_ID: "AKIDREPLICA",
  AWS_SECRET_ACCESS_KEY: "replica-secret",
});

beforeAll(async () => {
  s3 = await startS3Server();
  s3.addBucket(BUCKET);
  s3.addKey("AKIDREPLICA", "replica-secret");
  Object.assign(process.env, s3Env(), { SOURCE_ALLOW_LOCAL: "1" });
  resetEnvCache();
  await bootApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  const own = () => ({
    ...s3Env(),
    CAPSTAN_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "capstan-replica-")),
    SOURCE_ALLOW_LOCAL: "1",
  });
  servers.push(...(await Promise.all([startServer(own()), startServer(own())])));
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map(stopServer));
  await s3?.close();
  for (const k of Object.keys(s3Env())) delete process.env[k];
  resetEnvCache();
});

describe("two replicas with their own data folders share blobs through the bucket", () => {
  it("an upload through one replica downloads through the other, byte for byte", async () => {
    const [a, b] = servers as [TServer, TServer];
    const bytes = Buffer.from(`shared between replicas ${Date.now()}`);
    const up = await call(a, "POST", `/v1/workspaces/${ws}/uploads`, { raw: bytes, type: "text/plain" });
    expect(up.status).toBe(201);
    const down = await call(b, "GET", `/v1/workspaces/${ws}/evidence/${up.json.sha256}`);
    expect(down.status).toBe(200);
    expect(down.body.equals(bytes)).toBe(true);
  });

  it("a product frozen through one replica is read (freeze, revision, contract) through the other, its snapshot in the bucket", async () => {
    const [a, b] = servers as [TServer, TServer];
    const repo = mkdtempSync(path.join(os.tmpdir(), "capstan-replica-repo-"));
    const git = (...args: string[]) =>
      execFileSync(
        "git",
        ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args],
        { cwd: repo, encoding: "utf8" },
      );
    git("init", "-q");
    writeFileSync(path.join(repo, "package.json"), JSON.stringify({ name: "r", scripts: { start: "node server.js" } }));
    writeFileSync(path.join(repo, "server.js"), "console.log(1)\n");
    writeFileSync(
      path.join(repo, "capabilities.json"),
      JSON.stringify({
        capabilities: [
          {
            id: "data.kv",
            required: true,
            actions: ["get"],
            scope: { prefix: "/app", max_value_bytes: 1024, max_keys: 10 },
            credential_owner: "platform",
            provider: { allow: ["platform"], fallback: "none" },
          },
        ],
      }),
    );
    git("add", "-A");
    git("commit", "-q", "-m", "r");

    const accepted = await call(a, "POST", `/v1/workspaces/${ws}/products`, {
      body: { repo_url: `file://${repo}`, ref: "main", auth: { kind: "none" } },
    });
    expect(accepted.status).toBe(202);
    const frz = accepted.json.source_freeze_id as string;
    // The freeze worker runs in a third process (this one), as a worker replica would.
    let freeze: THttp | undefined;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      await processPendingFreezes(10);
      freeze = await call(b, "GET", `/v1/workspaces/${ws}/source-freezes/${frz}`);
      if (freeze.json.status !== "pending") break;
    }
    expect(freeze!.json.status).toBe("frozen");
    const { sha256, size_bytes } = freeze!.json.snapshot;
    expect(
      s3.buckets.get(BUCKET)!.get(`sha256/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`)?.body.length,
    ).toBe(size_bytes);

    const rev = freeze!.json.revision.id as string;
    const confirmed = await call(
      b,
      "POST",
      `/v1/workspaces/${ws}/products/${accepted.json.product_id}/revisions/${rev}/descriptor:confirm`,
      { body: {} },
    );
    expect(confirmed.status).toBe(200);
    for (const s of [a, b]) {
      const revision = await call(s, "GET", `/v1/workspaces/${ws}/revisions/${rev}`);
      expect(revision.status).toBe(200);
      expect(revision.json.snapshot).toMatchObject({ sha256, size_bytes });
      const contract = await call(s, "GET", `/v1/workspaces/${ws}/revisions/${rev}/capability-contract`);
      expect(contract.status).toBe(200);
      expect(contract.json.contract_hash).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});
