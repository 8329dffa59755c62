import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteObject, getObject, putObject } from "@/server/domain/managed-resources/bucket-objects";
import {
  measureManagedResources,
  processManagedResources,
} from "@/server/domain/managed-resources/managed-resources.worker";
import { blobStore } from "@/server/platform/blob-store";
import { sha256Hex } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { until } from "./support/procs";
import { api, BASE_URL, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * Issue #33 item 6 (buckets): presigned GET/PUT/DELETE URLs with an expiry,
 * refused when expired, tampered, signed for another bucket, key or method;
 * storage reclaimed when objects are deleted or overwritten and when the
 * bucket is destroyed, never bytes something else still names; usage that
 * drops with it; a bucket over its size limit refuses new objects.
 */
let owner: TTestUser;
let viewer: TTestUser;
let other: TTestUser;
let ws: string;
let wsB: string;
let bucket: string;
let bucketB: string;
const hour = 3_600_000;
let clock = 10;

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
  viewer = await makeUser();
  other = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  wsB = (await makeWorkspace(other.token)).id;
  expect(
    (
      await api("POST", `/v1/workspaces/${ws}/members`, {
        token: owner.token,
        body: { email: viewer.email, role: "viewer" },
      })
    ).status,
  ).toBe(201);
  bucket = await createBucket(owner, ws, "files");
  bucketB = await createBucket(other, wsB, "theirs");
});

afterAll(() => {
  delete process.env.CAPSTAN_MRES_MAX_SIZE_BYTES;
  resetEnvCache();
});

async function createBucket(u: TTestUser, w: string, name: string): Promise<string> {
  const r = await api("POST", `/v1/workspaces/${w}/managed-resources`, {
    token: u.token,
    body: { kind: "object_bucket", name },
  });
  expect(r.status, r.text).toBe(201);
  while ((await processManagedResources(10)) > 0) {
    /* provision */
  }
  return r.json.id as string;
}

const presign = (body: Record<string, unknown>, opts: { u?: TTestUser; w?: string; mres?: string } = {}) =>
  api("POST", `/v1/workspaces/${opts.w ?? ws}/managed-resources/${opts.mres ?? bucket}/objects:presign`, {
    token: (opts.u ?? owner).token,
    body,
  });
async function url(method: string, key: string, mres = bucket, u = owner, w = ws): Promise<string> {
  const r = await presign({ method, key, expires_in: 600 }, { u, w, mres });
  expect(r.status, r.text).toBe(200);
  expect(r.json.url.startsWith(`${BASE_URL}/v1/buckets/${mres}/`)).toBe(true);
  return (r.json.url as string).slice(BASE_URL.length);
}
const send = (method: string, path: string, body?: string | Uint8Array, contentType = "application/octet-stream") =>
  api(method, path, body === undefined ? {} : { rawBody: body, headers: { "content-type": contentType } });
const rowsOf = (mres: string) => db().storageObject.findMany({ where: { productId: mres }, orderBy: { key: "asc" } });
const sizeOf = async (mres: string, w = ws, u = owner) => {
  await measureManagedResources(50, new Date(Date.now() + clock++ * hour));
  return (await api("GET", `/v1/workspaces/${w}/managed-resources/${mres}`, { token: u.token })).json;
};

describe("presigned object URLs", () => {
  it("store, read and delete an object with no other credential, until they expire", async () => {
    const put = await url("PUT", "photos/a b.txt");
    const stored = await send("PUT", put, "hello presigned", "text/plain");
    expect(stored.status, stored.text).toBe(200);
    expect(stored.json).toEqual({ key: "photos/a b.txt", size_bytes: 15, sha256: sha256Hex("hello presigned") });

    const got = await send("GET", await url("GET", "photos/a b.txt"));
    expect(got.status).toBe(200);
    expect(got.text).toBe("hello presigned");
    expect(got.headers.get("content-type")).toBe("text/plain");
    // An app's bytes never run on Capstan's origin.
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
    expect(got.headers.get("content-disposition")).toBe("attachment");
    expect(got.headers.get("content-security-policy")).toMatch(/sandbox/);

    const del = await send("DELETE", await url("DELETE", "photos/a b.txt"));
    expect(del.status).toBe(204);
    expect((await send("GET", await url("GET", "photos/a b.txt"))).status).toBe(404);
    expect(await rowsOf(bucket)).toEqual([]);
  });

  it("refuses an expired URL, one altered for another bucket or key, a tampered signature or expiry, and the wrong method: 403, nothing written", async () => {
    const writeB = await url("PUT", "b-key", bucketB, other, wsB);
    expect((await send("PUT", writeB, "B's object")).status).toBe(200);
    const before = { a: await rowsOf(bucket), b: await rowsOf(bucketB) };
    const put = await url("PUT", "mine");
    const reason = async (path: string, method = "PUT") => {
      const r = await send(method, path, method === "PUT" ? "attack" : undefined);
      expect(r.status, r.text).toBe(403);
      expect(r.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      return r.json.type.split("/").pop() as string;
    };
    // Signed for A's bucket, sent to B's (the other workspace's) bucket, or to another key.
    expect(await reason(put.replace(bucket, bucketB))).toBe("presign_signature_mismatch");
    expect(await reason(put.replace("/mine?", "/b-key?").replace(bucket, bucketB))).toBe("presign_signature_mismatch");
    expect(await reason(put.replace("/mine?", "/yours?"))).toBe("presign_signature_mismatch");
    // The signature or the expiry altered.
    const sig = new URL(put, BASE_URL).searchParams.get("signature")!;
    expect(await reason(put.replace(sig, (sig[0] === "A" ? "B" : "A") + sig.slice(1)))).toBe(
      "presign_signature_mismatch",
    );
    expect(await reason(put.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 86_400}`))).toBe(
      "presign_signature_mismatch",
    );
    // A PUT URL used to read, a GET URL used to write.
    expect(await reason(put, "GET")).toBe("presign_method_mismatch");
    expect(await reason(await url("GET", "mine"))).toBe("presign_method_mismatch");
    // Without the signature at all.
    expect(await reason(put.split("?")[0]!)).toBe("presign_invalid");
    // Expired: valid for one second.
    const short = await presign({ method: "PUT", key: "mine", expires_in: 1 });
    expect(short.status).toBe(200);
    // Sent once, after the expiry the URL itself names has passed (never before: an early PUT would write).
    const expires = Number(new URL(short.json.url as string).searchParams.get("expires"));
    expect(expires).toBeGreaterThan(0);
    await until("the one-second URL's expiry to pass", () => Date.now() > expires * 1000 + 100, 20_000, 100);
    expect(await reason(short.json.url.slice(BASE_URL.length))).toBe("presign_expired");

    expect(await rowsOf(bucket)).toEqual(before.a);
    expect(await rowsOf(bucketB)).toEqual(before.b);
    expect((await send("GET", await url("GET", "b-key", bucketB, other, wsB))).text).toBe("B's object");
  });

  it("signs only valid requests for the caller's own buckets: bounds, roles, kinds, other workspaces", async () => {
    const problem = async (r: Awaited<ReturnType<typeof presign>>, status: number) => {
      expect(r.status, r.text).toBe(status);
      expect(r.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    };
    await problem(await presign({ method: "GET", key: "x", expires_in: 0 }), 422);
    await problem(await presign({ method: "GET", key: "x", expires_in: 7 * 86_400 + 1 }), 422);
    await problem(await presign({ method: "POST", key: "x" }), 422);
    await problem(await presign({ method: "GET", key: "" }), 422);
    await problem(await presign({ method: "GET", key: "a\u0001b" }), 422);
    await problem(await presign({ method: "GET", key: ".." }), 422);
    expect((await presign({ method: "GET", key: "x", expires_in: 7 * 86_400 })).status).toBe(200);
    // A viewer may not sign; another workspace's bucket does not exist for the caller; their workspace is forbidden.
    await problem(await presign({ method: "GET", key: "x" }, { u: viewer }), 403);
    await problem(await presign({ method: "GET", key: "b-key" }, { mres: bucketB }), 404);
    await problem(await presign({ method: "GET", key: "b-key" }, { w: wsB, mres: bucketB }), 403);
    const pgLike = await api(
      "POST",
      `/v1/workspaces/${ws}/managed-resources/mres_00000000000000000000000000/objects:presign`,
      { token: owner.token, body: { method: "GET", key: "x" } },
    );
    await problem(pgLike, 404);
  });
});

describe("storage reclaimed", () => {
  it("deletes a blob once no key of the bucket names it (delete, overwrite), keeps bytes named elsewhere, and the usage drops", async () => {
    const bytesX = Buffer.from(`shared bytes ${Date.now()}`);
    const bytesY = Buffer.from(`other bytes ${Date.now()} and more`);
    const scope = blobStore().scope(bucket);
    // The same bytes are also in the shared store (an upload, a snapshot): never touched by the bucket.
    await blobStore().put(bytesX);
    for (const k of ["k1", "k2"]) expect((await send("PUT", await url("PUT", k), bytesX)).status).toBe(200);
    expect(await scope.has(sha256Hex(bytesX))).toBe(true);
    expect((await sizeOf(bucket)).size_bytes).toBe(2 * bytesX.length);

    expect((await send("DELETE", await url("DELETE", "k1"))).status).toBe(204);
    expect(await scope.has(sha256Hex(bytesX))).toBe(true); // k2 still names it
    expect((await send("PUT", await url("PUT", "k2"), bytesY)).status).toBe(200); // overwritten: X is named by nobody
    expect(await scope.has(sha256Hex(bytesX))).toBe(false);
    expect(await scope.has(sha256Hex(bytesY))).toBe(true);
    expect((await sizeOf(bucket)).size_bytes).toBe(bytesY.length);

    expect((await send("DELETE", await url("DELETE", "k2"))).status).toBe(204);
    expect(await scope.has(sha256Hex(bytesY))).toBe(false);
    expect((await sizeOf(bucket)).size_bytes).toBe(0);
    expect(await blobStore().has(sha256Hex(bytesX))).toBe(true);
    expect((await blobStore().get(sha256Hex(bytesX)))?.equals(bytesX)).toBe(true);
  });

  it("never loses bytes a key names while PUTs and DELETEs of the same bytes race", async () => {
    const bytes = Buffer.from(`racing ${Date.now()}`);
    for (let round = 0; round < 8; round++) {
      await putObject(ws, bucket, "race-b", bytes, "text/plain");
      await Promise.all([
        putObject(ws, bucket, "race-a", bytes, "text/plain"),
        deleteObject(ws, bucket, "race-b"),
        deleteObject(ws, bucket, "race-a"),
      ]);
      for (const row of await rowsOf(bucket))
        expect((await getObject(ws, bucket, row.key))?.bytes.equals(bytes), `${row.key} in round ${round}`).toBe(true);
    }
    await deleteObject(ws, bucket, "race-a");
    await deleteObject(ws, bucket, "race-b");
    expect(await blobStore().scope(bucket).has(sha256Hex(bytes))).toBe(false);
  });

  it("removes every blob of a destroyed bucket", async () => {
    const doomed = await createBucket(owner, ws, "doomed");
    const bytes = [Buffer.from(`one ${Date.now()}`), Buffer.from(`two ${Date.now()}`)];
    for (const [i, b] of bytes.entries())
      expect((await send("PUT", await url("PUT", `f${i}`, doomed), b)).status).toBe(200);
    expect(
      (
        await api("DELETE", `/v1/workspaces/${ws}/managed-resources/${doomed}?skip_grace_period=true`, {
          token: owner.token,
        })
      ).status,
    ).toBe(202);
    while ((await processManagedResources(10)) > 0) {
      /* destroy */
    }
    expect(
      (await api("GET", `/v1/workspaces/${ws}/managed-resources/${doomed}`, { token: owner.token })).json.status,
    ).toBe("deleted");
    expect(await rowsOf(doomed)).toEqual([]);
    for (const b of bytes) expect(await blobStore().scope(doomed).has(sha256Hex(b))).toBe(false);
  });
});

describe("a bucket over its size limit", () => {
  it("refuses new objects (409 size_limit_exceeded) but reads and deletes, and takes writes again once under", async () => {
    process.env.CAPSTAN_MRES_MAX_SIZE_BYTES = "64";
    resetEnvCache();
    try {
      expect((await send("PUT", await url("PUT", "big"), "x".repeat(100))).status).toBe(200);
      const over = await sizeOf(bucket);
      expect(over.failure?.code).toBe("size_limit_exceeded");
      const refused = await send("PUT", await url("PUT", "more"), "y");
      expect(refused.status, refused.text).toBe(409);
      expect(refused.json.type).toMatch(/size_limit_exceeded$/);
      expect((await rowsOf(bucket)).map((r) => r.key)).toEqual(["big"]);
      expect((await send("GET", await url("GET", "big"))).status).toBe(200);
      expect((await send("DELETE", await url("DELETE", "big"))).status).toBe(204);
      expect((await sizeOf(bucket)).failure).toBeNull();
      expect((await send("PUT", await url("PUT", "more"), "y")).status).toBe(200);
    } finally {
      delete process.env.CAPSTAN_MRES_MAX_SIZE_BYTES;
      resetEnvCache();
    }
  });
});
