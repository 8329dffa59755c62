import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OUTAGE_RETRY_MS, processPendingFreezes } from "@/server/domain/source/freeze.service";
import { blobStore, type BlobStore } from "@/server/platform/blob-store";
import { PART_SIZE, S3BlobStore } from "@/server/platform/blob-store-s3";
import { sha256Hex } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { AppError } from "@/server/platform/errors";
import { resetEnvCache } from "@/server/platform/env";
import { runner } from "@/server/runtime";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";
import { handleEvidenceDownload, handleUpload } from "./support/handlers";
import { startS3Server, type TS3Server } from "./support/s3-server";

/**
 * The platform blob store on an S3-compatible bucket (issue #23 part 1),
 * against the project's own SigV4-checking S3 server on loopback: content
 * addressing, multipart for large objects, sha256 verified on read, and
 * outages (503, reset, refused, in the middle of a multipart upload and of a
 * freeze) as clear problems that resume on their own.
 */
const BUCKET = "capstan-blobs";
let s3: TS3Server;
let owner: TTestUser;
let ws: string;
const saved: Record<string, string | undefined> = {};

function setEnv(vars: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(vars)) {
    if (!(k in saved)) saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
}

beforeAll(async () => {
  s3 = await startS3Server();
  s3.addBucket(BUCKET);
  s3.addKey("AKIDBLOBS", "blob-secret");
  setEnv({
    SOURCE_ALLOW_LOCAL: "1",
    CAPSTAN_BLOB_S3_BUCKET: BUCKET,
    CAPSTAN_BLOB_S3_PREFIX: "replica-test",
    CAPSTAN_BLOB_S3_ENDPOINT: s3.endpoint,
    CAPSTAN_BLOB_S3_REGION: s3.region,
    CAPSTAN_BLOB_S3_FORCE_PATH_STYLE: "1",
    // The standard AWS chain, from the environment.
    AWS_ACCESS_KEY_ID: "AKIDBLOBS",
    AWS_SECRET_ACCESS_KEY: "blob-secret",
  });
  await bootApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
  setEnv(Object.fromEntries(Object.keys(saved).map((k) => [k, saved[k]])));
  await s3.close();
});

const objectOf = (sha256: string) =>
  s3.buckets.get(BUCKET)!.get(`replica-test/sha256/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`);

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe("S3BlobStore", () => {
  let store: BlobStore;
  beforeAll(() => {
    store = blobStore();
  });

  it("is chosen by CAPSTAN_BLOB_S3_BUCKET, stores content-addressed under the prefix, and reads back verified", async () => {
    expect(store).toBeInstanceOf(S3BlobStore);
    const bytes = Buffer.from(`hello ${Date.now()}`);
    const sha = sha256Hex(bytes);
    const first = await store.put(bytes, "text/plain");
    expect(first).toEqual({ uri: `blob:sha256:${sha}`, sha256: sha, size_bytes: bytes.length, created: true });
    expect(objectOf(sha)?.body.equals(bytes)).toBe(true);
    expect(objectOf(sha)?.metadata.sha256).toBe(sha);
    expect(objectOf(sha)?.contentType).toBe("text/plain");
    expect((await store.put(Buffer.from(bytes))).created).toBe(false);
    expect(await store.has(sha)).toBe(true);
    expect((await store.get(sha))?.equals(bytes)).toBe(true);
    expect(await store.get("0".repeat(64))).toBeNull();
    expect(await store.has("0".repeat(64))).toBe(false);
    expect(await store.get("../../etc/passwd")).toBeNull();
  });

  it("deletes scoped blobs one at a time and a whole scope, never the shared store's copy", async () => {
    const bytes = Buffer.from(`scoped ${Date.now()}`);
    const sha = sha256Hex(bytes);
    await store.put(bytes);
    const scope = store.scope("mres_scopetest");
    await scope.put(bytes);
    await scope.put(Buffer.from(`second ${Date.now()}`));
    expect(
      s3.buckets
        .get(BUCKET)!
        .get(`replica-test/scopes/mres_scopetest/sha256/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`)
        ?.body.equals(bytes),
    ).toBe(true);
    await scope.delete(sha);
    await scope.delete(sha); // absent: nothing to do
    expect(await scope.has(sha)).toBe(false);
    expect(await store.has(sha)).toBe(true); // the shared copy is not the scope's
    expect(await scope.deleteAll()).toBe(1);
    expect([...s3.buckets.get(BUCKET)!.keys()].filter((k) => k.includes("scopes/mres_scopetest/"))).toEqual([]);
    expect((await store.get(sha))?.equals(bytes)).toBe(true);
  });

  it("uploads a large file in parts (multipart) and reads it back", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "capstan-s3blob-"));
    const file = path.join(dir, "big.bin");
    const bytes = randomBytes(PART_SIZE * 2 + 12345);
    writeFileSync(file, bytes);
    const before = s3.requests.length;
    const ev = await store.putFile(file, "application/gzip");
    expect(ev).toMatchObject({ sha256: sha256Hex(bytes), size_bytes: bytes.length, created: true });
    const seen = s3.requests.slice(before);
    expect(
      seen
        .filter((r) => r.method === "PUT" && r.query.partNumber)
        .map((r) => r.query.partNumber)
        .sort(),
    ).toEqual(["1", "2", "3"]);
    expect(seen.some((r) => r.method === "POST" && "uploads" in r.query)).toBe(true);
    expect(s3.multipartUploads.size).toBe(0);
    expect((await store.get(ev.sha256))?.equals(bytes)).toBe(true);
  });

  it("refuses bytes that do not match their address: 503 blob_corrupt", async () => {
    const ev = await store.put(Buffer.from(`to be corrupted ${Date.now()}`));
    objectOf(ev.sha256)!.body = Buffer.from("something else");
    const err = await rejection(store.get(ev.sha256));
    expect(err).toMatchObject({ status: 503, reason: "blob_corrupt" });
  });

  it("an outage is 503 blob_store_unavailable with Retry-After, never a hang: 503s, resets, refused connections, mid-multipart", async () => {
    const small = Buffer.from(`outage ${Date.now()}`);
    for (const mode of ["503", "500", "reset"] as const) {
      s3.behave({ mode });
      const started = Date.now();
      const put = await rejection(store.put(small));
      expect(put).toMatchObject({ status: 503, reason: "blob_store_unavailable", headers: { "retry-after": "5" } });
      expect(put.message).not.toMatch(/blob-secret|AKIDBLOBS/);
      expect((await rejection(store.get(sha256Hex(small)))).reason).toBe("blob_store_unavailable");
      expect(Date.now() - started).toBeLessThan(15_000);
    }
    s3.behave({ mode: "ok" });

    // The store fails after the HEAD, the multipart start and one part.
    const dir = mkdtempSync(path.join(os.tmpdir(), "capstan-s3blob-"));
    const file = path.join(dir, "big.bin");
    const bytes = randomBytes(PART_SIZE * 2 + 1);
    writeFileSync(file, bytes);
    s3.behave({ mode: "503", after: 3 });
    expect((await rejection(store.putFile(file))).reason).toBe("blob_store_unavailable");
    expect(objectOf(sha256Hex(bytes))).toBeUndefined();
    s3.behave({ mode: "ok" });
    // Back: the same write completes, nothing to clean up by hand.
    expect((await store.putFile(file)).created).toBe(true);
    expect((await store.get(sha256Hex(bytes)))?.equals(bytes)).toBe(true);

    // Nothing listening at all.
    const gone = new S3BlobStore({
      bucket: BUCKET,
      prefix: "",
      endpoint: "http://127.0.0.1:9",
      region: s3.region,
      forcePathStyle: true,
    });
    const started = Date.now();
    expect((await rejection(gone.put(small))).reason).toBe("blob_store_unavailable");
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe("through the API", () => {
  const upload = (bytes: Buffer) =>
    handleUpload(
      new Request(`http://localhost:3000/v1/workspaces/${ws}/uploads`, {
        method: "POST",
        body: new Uint8Array(bytes),
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/octet-stream" },
      }),
      ws,
    );
  const download = (sha: string) =>
    handleEvidenceDownload(
      new Request(`http://localhost:3000/v1/workspaces/${ws}/evidence/${sha}`, {
        headers: { authorization: `Bearer ${owner.token}` },
      }),
      ws,
      sha,
    );

  it("uploads land in the bucket; an outage is a 503 problem on upload and download; acknowledged uploads survive it", async () => {
    const bytes = Buffer.from(`an upload ${Date.now()}`);
    const ok = await upload(bytes);
    expect(ok.status).toBe(201);
    const up = await ok.json();
    expect(objectOf(up.sha256)?.body.equals(bytes)).toBe(true);

    s3.behave({ mode: "503" });
    const down = await upload(Buffer.from(`during the outage ${Date.now()}`));
    expect(down.status).toBe(503);
    expect(down.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect(down.headers.get("retry-after")).toBe("5");
    const problem = await down.json();
    expect(problem).toMatchObject({ status: 503, code: "unavailable", reason: "blob_store_unavailable" });
    expect(JSON.stringify(problem)).not.toMatch(/\bat .*\.ts:\d+/);
    const read = await download(up.sha256);
    expect(read.status).toBe(503);
    expect((await read.json()).reason).toBe("blob_store_unavailable");
    s3.behave({ mode: "ok" });

    const back = await download(up.sha256);
    expect(back.status).toBe(200);
    expect(Buffer.from(await back.arrayBuffer()).equals(bytes)).toBe(true);

    // Recorded but gone from the bucket: the store's fault, a 503 that says so (not a 404, not a 500).
    s3.buckets
      .get(BUCKET)!
      .delete(`replica-test/sha256/${up.sha256.slice(0, 2)}/${up.sha256.slice(2, 4)}/${up.sha256}`);
    const missing = await download(up.sha256);
    expect(missing.status).toBe(503);
    expect((await missing.json()).reason).toBe("blob_missing");
  });

  it("a large upload streams through to a multipart upload; past CAPSTAN_MAX_UPLOAD_BYTES it is a 413 and nothing is stored", async () => {
    setEnv({ CAPSTAN_MAX_UPLOAD_BYTES: String(PART_SIZE + 2 * 1024 * 1024) });
    try {
      const bytes = randomBytes(PART_SIZE + 1024 * 1024);
      const before = s3.requests.length;
      const res = await upload(bytes);
      expect(res.status).toBe(201);
      const up = await res.json();
      expect(up).toMatchObject({ sha256: sha256Hex(bytes), size_bytes: bytes.length });
      expect(s3.requests.slice(before).filter((r) => r.method === "PUT" && r.query.partNumber)).toHaveLength(2);
      expect(objectOf(up.sha256)?.body.equals(bytes)).toBe(true);

      const tooBig = randomBytes(PART_SIZE + 3 * 1024 * 1024);
      // Streamed without a Content-Length: the limit is enforced on the bytes as they arrive.
      const streamed = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < tooBig.length; i += 1024 * 1024)
            c.enqueue(new Uint8Array(tooBig.subarray(i, i + 1024 * 1024)));
          c.close();
        },
      });
      const refused = await handleUpload(
        new Request(`http://localhost:3000/v1/workspaces/${ws}/uploads`, {
          method: "POST",
          body: streamed,
          duplex: "half",
          headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/octet-stream" },
        } as RequestInit),
        ws,
      );
      expect(refused.status).toBe(413);
      expect((await refused.json()).reason).toBe("payload_too_large");
      expect(objectOf(sha256Hex(tooBig))).toBeUndefined();
    } finally {
      setEnv({ CAPSTAN_MAX_UPLOAD_BYTES: undefined });
    }
  });

  it("a freeze that meets an outage in the middle of its snapshot upload waits (pending, reason shown) and completes once the store is back", async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), "capstan-s3repo-"));
    const git = (...args: string[]) =>
      execFileSync(
        "git",
        ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args],
        { cwd: repo, encoding: "utf8" },
      ).trim();
    git("init", "-q");
    writeFileSync(
      path.join(repo, "package.json"),
      JSON.stringify({ name: "big", scripts: { start: "node server.js" } }),
    );
    writeFileSync(path.join(repo, "server.js"), "console.log(1)\n");
    mkdirSync(path.join(repo, "assets"));
    // Incompressible, so the snapshot is larger than one part and goes multipart.
    writeFileSync(path.join(repo, "assets", "blob.bin"), randomBytes(PART_SIZE + 1024 * 1024));
    git("add", "-A");
    git("commit", "-q", "-m", "big");

    const accepted = await api("POST", `/v1/workspaces/${ws}/products`, {
      token: owner.token,
      body: { repo_url: `file://${repo}`, ref: "main", auth: { kind: "none" } },
    });
    expect(accepted.status).toBe(202);
    const frz = accepted.json.source_freeze_id as string;

    s3.behave({ mode: "503", after: 3 }); // HEAD, CreateMultipartUpload and one part pass; then the store fails
    expect(await processPendingFreezes(10)).toBeGreaterThanOrEqual(1);
    const waiting = await api("GET", `/v1/workspaces/${ws}/source-freezes/${frz}`, { token: owner.token });
    expect(waiting.json.status).toBe("pending");
    expect(waiting.json.problem).toMatchObject({ status: 503, reason: "blob_store_unavailable" });
    const row = await db().sourceFreeze.findUniqueOrThrow({ where: { id: frz } });
    expect(row.attempts).toBe(0); // an outage spends no attempt: it can last longer than MAX_ATTEMPTS tries
    expect(row.lockedUntil!.getTime()).toBeGreaterThan(Date.now());

    // Still down at the next try: still pending, still no attempt spent.
    s3.behave({ mode: "reset" });
    await db().sourceFreeze.update({ where: { id: frz }, data: { lockedUntil: null } });
    await processPendingFreezes(10);
    expect((await db().sourceFreeze.findUniqueOrThrow({ where: { id: frz } })).status).toBe("pending");

    // Back: the worker picks it up by itself once the retry time has passed.
    s3.behave({ mode: "ok" });
    const deadline = Date.now() + OUTAGE_RETRY_MS + 20_000;
    let done: Record<string, unknown> | null = null;
    while (Date.now() < deadline) {
      await processPendingFreezes(10);
      const r = await api("GET", `/v1/workspaces/${ws}/source-freezes/${frz}`, { token: owner.token });
      if (r.json.status !== "pending") {
        done = r.json;
        break;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(done).toMatchObject({ status: "frozen" });
    expect(done!.problem).toBeUndefined();
    const snap = done!.snapshot as { sha256: string; size_bytes: number };
    expect(objectOf(snap.sha256)?.body.length).toBe(snap.size_bytes);
    expect((await blobStore().get(snap.sha256))?.length).toBe(snap.size_bytes);
    expect(s3.multipartUploads.size).toBe(0);
  });
});

describe("a hosted app on the S3 store", () => {
  it("deploys from a snapshot in the bucket; an invocation during an outage ends recorded as a runtime_error, never half-written", async () => {
    const app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
    const dep = await deploy(owner, ws, app.revisionId);
    expect(dep.status).toBe("active");
    // The build log and health attempts went to the bucket too.
    expect(objectOf(dep.evidence.build_log.sha256)).toBeDefined();
    expect(objectOf(dep.evidence.health_attempts.sha256)).toBeDefined();

    const ses = must(
      await api("POST", "/v1/sessions", { token: owner.token, body: { surface_id: dep.surface_id } }),
      201,
      "session",
    );
    const invoke = (body: Record<string, unknown>) =>
      api("POST", `/v1/sessions/${ses.id}/invocations`, {
        token: owner.token,
        body: { kind: "http_request", body_evidence: null, ...body },
      });
    const up = await handleUpload(
      new Request(`http://localhost:3000/v1/workspaces/${ws}/uploads`, {
        method: "POST",
        body: `name=s3 ${Date.now()}`,
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "text/plain" },
      }),
      ws,
    );
    const { uri, sha256, size_bytes } = await up.json();

    s3.behave({ mode: "503" });
    try {
      // The request's body cannot be read: the app is not called, the invocation is recorded as failed.
      const notCalled = await invoke({ method: "POST", path: "/echo", body_evidence: { uri, sha256, size_bytes } });
      expect(notCalled.status).toBe(201);
      expect(notCalled.json.execution).toMatchObject({
        status: "failed",
        failure: { code: "runtime_error" },
        result: { http_status: null, body_evidence: null },
      });
      expect(notCalled.json.execution.failure.message).toMatch(/not called.*blob store is unavailable/);
      // The app answers but its response cannot be stored: its status is kept, the loss is said.
      const unstored = await invoke({ method: "GET", path: "/hello" });
      expect(unstored.status).toBe(201);
      expect(unstored.json.execution).toMatchObject({
        status: "failed",
        failure: { code: "runtime_error" },
        result: { http_status: 200, body_evidence: null },
      });
      expect(unstored.json.execution.failure.message).toMatch(/could not be stored/);
    } finally {
      s3.behave({ mode: "ok" });
    }
    const back = await invoke({ method: "POST", path: "/echo", body_evidence: { uri, sha256, size_bytes } });
    expect(back.json.execution).toMatchObject({ status: "completed", result: { http_status: 200 } });
    expect(
      JSON.parse((await blobStore().get(back.json.execution.result.body_evidence.sha256))!.toString("utf8")).body,
    ).toMatch(/^name=s3/);
    // Nothing stays admitted without an execution.
    const listed = must(await api("GET", `/v1/sessions/${ses.id}/invocations`, { token: owner.token }), 200, "list");
    for (const inv of listed.items) expect(inv.execution).not.toBeNull();

    // A deployment that cannot read its snapshot says why (not "the runner failed unexpectedly").
    s3.behave({ mode: "503" });
    try {
      const failed = await deploy(owner, ws, app.revisionId);
      expect(failed).toMatchObject({ status: "failed", reason_code: "blob_store_unavailable" });
    } finally {
      s3.behave({ mode: "ok" });
    }
  });
});
