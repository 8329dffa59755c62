import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { buildSync } from "esbuild";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileRunner } from "@/server/domain/deployments/reconcile.service";
import {
  measureManagedResources,
  processManagedResources,
} from "@/server/domain/managed-resources/managed-resources.worker";
import {
  databaseExists,
  destroyDatabase,
  managedPostgresTarget,
  scramVerifier,
} from "@/server/domain/managed-resources/postgres-admin";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { utcMonth } from "@/server/platform/time";
import { runner } from "@/server/runtime";
import { closeBridgeSocket } from "@/server/runtime/bridge-socket";
import { closeResourceSockets, serveResourceSockets } from "@/server/runtime/resource-sockets";
import { handleSurfaceRequest } from "./support/handlers";
import { api, makeUser, makeWorkspace, type TApiResult, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { testDbMode } from "./support/db";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";
import { rowsText } from "./support/json-text";

/**
 * Managed resources end to end: a real database and role on the PostgreSQL
 * server the tests run on, a real fixture app (with the `pg` client bundled
 * by esbuild, since the sandbox has no network) deployed by the real worker
 * and runner, reaching the database only through its per-deployment socket.
 * Every response, log line, event and audit row after creation is searched
 * for the password.
 */
const APP = readFileSync(path.join(import.meta.dirname, "fixtures", "resource-app.js"), "utf8");
const PG_BUNDLE = buildSync({
  stdin: { contents: 'module.exports = require("pg");', resolveDir: path.join(import.meta.dirname, "..") },
  bundle: true,
  platform: "node",
  format: "cjs",
  write: false,
  minify: true,
  external: ["pg-native"],
  logLevel: "error",
}).outputFiles[0]!.text;
const APP_FILES = { "server.js": APP, "pg.js": PG_BUNDLE };

let owner: TTestUser;
let ws: string;
let app: { productId: string; revisionId: string };
let otherProduct: string;
let stranger: TTestUser;
let strangerWs: string;
let strangerProduct: string;
/** Every response body after a creation, and every log line, for the secret search. */
const seen: string[] = [];
const logLines: string[] = [];
const restoreWrites: Array<() => void> = [];

const call = async (method: string, p: string, body?: unknown, token = owner.token): Promise<TApiResult> => {
  const r = await api(method, p, { token, ...(body !== undefined ? { body } : {}) });
  seen.push(r.text);
  return r;
};
const base = (w = ws) => `/v1/workspaces/${w}/managed-resources`;
const get = (id: string) => call("GET", `${base()}/${id}`);
const viaPath = async (srf: string, p: string) => {
  const r = await handleSurfaceRequest(new Request(`http://localhost:3000/s/${srf}${p}`), srf);
  return { status: r.status, json: JSON.parse(await r.text()) };
};
async function runWorker(): Promise<void> {
  while ((await processManagedResources(50)) > 0) {
    /* next batch */
  }
}

beforeAll(async () => {
  // Capture what Capstan logs (at debug level) for the secret search.
  process.env.LOG_LEVEL = "debug";
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
      logLines.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
    };
    restoreWrites.push(() => (stream.write = original));
  }
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  must(await api("PUT", `/v1/workspaces/${ws}/plan`, { token: owner.token, body: { plan: "team" } }), 200, "plan");
  app = await confirmedApp(owner, ws, { files: APP_FILES }, HEALTH_EDIT);
  otherProduct = (await confirmedApp(owner, ws, { files: APP_FILES }, HEALTH_EDIT)).productId;
  stranger = await makeUser();
  strangerWs = (await makeWorkspace(stranger.token)).id;
  strangerProduct = (await confirmedApp(stranger, strangerWs, {}, HEALTH_EDIT)).productId;
});

afterAll(async () => {
  for (const restore of restoreWrites) restore();
  await runner().sweep(async () => new Set());
  if (testDbMode() === "postgres") {
    // Databases of resources a failing test left behind.
    const left = await db().managedResource.findMany({ where: { kind: "postgres", status: { not: "deleted" } } });
    for (const r of left) await destroyDatabase({ role: r.roleName!, database: r.dbName! }).catch(() => undefined);
  }
});

describe.skipIf(testDbMode() !== "postgres")("a postgres resource", () => {
  it("is created, attached, used by a deployed app, detached and reattached with its rows, refused deletion while attached, and destroyed only after the grace period", async () => {
    const created = await api("POST", base(), {
      token: owner.token,
      body: { kind: "postgres", name: "main-db", attach: { product_id: app.productId } },
    });
    expect(created.status).toBe(201);
    const mres = created.json;
    const password: string = mres.secret.password;
    expect(password.length).toBeGreaterThanOrEqual(40);
    expect(mres).toMatchObject({
      kind: "postgres",
      status: "provisioning",
      name: "main-db",
      attachment: { product_id: app.productId, environment_type: null, env_var: "DATABASE_URL" },
      connection: { database: expect.stringMatching(/^mres_/), username: expect.stringMatching(/^mres_/) },
    });
    const names = { role: mres.connection.username as string, database: mres.connection.database as string };
    expect(await databaseExists(names)).toEqual({ role: false, database: false });

    const read1 = must(await get(mres.id), 200, "read");
    expect(read1).not.toHaveProperty("secret");
    await runWorker();
    expect(must(await get(mres.id), 200, "read")).toMatchObject({ status: "available", failure: null });
    expect(await databaseExists(names)).toEqual({ role: true, database: true });

    // DELETE while attached: 409 naming the product, nothing changed.
    const refused = await call("DELETE", `${base()}/${mres.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ reason: "resource_attached", products: [app.productId] });
    expect(refused.json.detail).toContain(app.productId);
    expect(must(await get(mres.id), 200, "read").status).toBe("available");

    // The app writes and reads a row through DATABASE_URL (a socket in its sandbox).
    const d1 = await deploy(owner, ws, app.revisionId);
    expect(d1.status).toBe("active");
    const env1 = await viaPath(d1.surface_id, "/env");
    const sandboxed =
      ((await db().deployment.findUniqueOrThrow({ where: { id: d1.id } })).runtime as { sandbox: string }).sandbox !==
      "none";
    expect(env1.json).toMatchObject({
      has_database_url: true,
      database_host: sandboxed ? "/capstan/run/pg0" : expect.stringMatching(/\/run\/pg0$/),
    });
    const write = await viaPath(d1.surface_id, "/db/write?v=kept-row");
    expect(write).toMatchObject({ status: 200, json: { rows: [{ body: "kept-row" }] } });
    const read = await viaPath(d1.surface_id, "/db/read");
    expect(read.json).toMatchObject({ rows: [{ body: "kept-row" }], who: { u: names.role, d: names.database } });
    // The socket serves this database only (the server trusts loopback; the socket is what stops it).
    const other = await viaPath(d1.surface_id, "/db/other");
    expect(other.json).toMatchObject({
      connected: false,
      error: expect.stringContaining(
        `only database ${names.database}, as one of its current login roles (${names.role}`,
      ),
    });
    expect(must(await get(mres.id), 200, "read").used_by).toEqual([
      { deployment_id: d1.id, environment_type: "preview", env_var: "DATABASE_URL" },
    ]);

    // Detach: data kept, the running app's new connections are refused, a second detach is a 409.
    const detached = must(await call("POST", `${base()}/${mres.id}/detach`, {}), 200, "detach");
    expect(detached).toMatchObject({ status: "available", attachment: null, used_by: [] });
    const cut = await viaPath(d1.surface_id, "/db/read");
    expect(cut.json.error).toContain("no longer attached");
    const again = await call("POST", `${base()}/${mres.id}/detach`, {});
    expect(again.status).toBe(409);
    expect(again.json.reason).toBe("not_attached");
    expect(must(await get(mres.id), 200, "read").updated_at).toBe(detached.updated_at);

    // Reattach (to another product of the workspace): its new deployment sees the row that survived.
    const re = must(
      await call("POST", `${base()}/${mres.id}/reattach`, { product_id: otherProduct, environment_type: "preview" }),
      200,
      "reattach",
    );
    expect(re.attachment).toMatchObject({
      product_id: otherProduct,
      environment_type: "preview",
      env_var: "DATABASE_URL",
    });
    const otherRev = (await db().revision.findFirstOrThrow({ where: { productId: otherProduct } })).id;
    const d2 = await deploy(owner, ws, otherRev);
    expect(d2.status).toBe("active");
    expect((await viaPath(d2.surface_id, "/db/read")).json.rows).toEqual([{ id: 1, body: "kept-row" }]);

    // Delete after detach: scheduled, restorable, then destroyed only once the grace period is over.
    must(await call("POST", `${base()}/${mres.id}/detach`, {}), 200, "detach 2");
    const scheduled = await call("DELETE", `${base()}/${mres.id}`);
    expect(scheduled.status).toBe(202);
    expect(scheduled.json.status).toBe("deletion_scheduled");
    const graceMs = new Date(scheduled.json.deletion.destroy_after).getTime() - Date.now();
    expect(graceMs).toBeGreaterThan(6 * 86_400_000);
    await runWorker();
    expect(await databaseExists(names)).toEqual({ role: true, database: true });
    // Restore = reattach during the grace period.
    const restored = must(
      await call("POST", `${base()}/${mres.id}/reattach`, { product_id: app.productId }),
      200,
      "restore",
    );
    expect(restored).toMatchObject({
      status: "provisioning",
      deletion: null,
      attachment: { product_id: app.productId },
    });
    await runWorker();
    expect(must(await get(mres.id), 200, "read").status).toBe("available");
    must(await call("POST", `${base()}/${mres.id}/detach`, {}), 200, "detach 3");
    must(await call("DELETE", `${base()}/${mres.id}`), 202, "delete again");
    // The clock moves past the grace period (the row's deadline, not a sleep).
    await db()
      .$executeRaw`UPDATE "managed_resources" SET "destroy_after" = now() - interval '1 second' WHERE "id" = ${mres.id}`;
    await runWorker();
    const gone = must(await get(mres.id), 200, "read deleted");
    expect(gone).toMatchObject({ status: "deleted", connection: null, attachment: null });
    expect(gone.deleted_at).not.toBeNull();
    expect(await databaseExists(names)).toEqual({ role: false, database: false });
    expect(
      (await db().managedResource.findUniqueOrThrow({ where: { id: mres.id }, omit: { sealedSecret: false } }))
        .sealedSecret,
    ).toBeNull();

    // Reattaching a deleted resource: a problem, nothing changed.
    const late = await call("POST", `${base()}/${mres.id}/reattach`, { product_id: app.productId });
    expect(late.status).toBe(409);
    expect(late.json.reason).toBe("illegal_transition");
    expect(must(await get(mres.id), 200, "read").updated_at).toBe(gone.updated_at);

    // Each step is an event, in order.
    const steps = (
      await db().outboxEvent.findMany({
        where: { subject: mres.id, type: "managed_resource.changed" },
        orderBy: { createdAt: "asc" },
      })
    ).map((e) => (e.data as { step: string }).step);
    expect(steps).toEqual([
      "create",
      "provisioned",
      "detach",
      "reattach",
      "detach",
      "schedule_delete",
      "restore",
      "reattach",
      "provisioned",
      "detach",
      "schedule_delete",
      "destroy",
      "destroyed",
    ]);

    // The password after creation: in no response, log line, event, audit row or app log.
    expect(seen.join("\n")).not.toContain(password);
    expect(logLines.join("")).not.toContain(password);
    const events = await db().outboxEvent.findMany({ where: { workspaceId: ws } });
    expect(rowsText(events)).not.toContain(password);
    const audits = await db().auditRecord.findMany({ where: { workspaceId: ws } });
    expect(rowsText(audits)).not.toContain(password);
    expect(await runner().runLog(d2.id, 1 << 20)).not.toContain(password);
    const deployments = must(await call("GET", `/v1/workspaces/${ws}/deployments/${d1.id}`), 200, "dep");
    expect(JSON.stringify(deployments)).not.toContain(password);
    const stored = await db().deployment.findUniqueOrThrow({ where: { id: d1.id } });
    expect(JSON.stringify(stored.runtime)).not.toContain(password);
  });

  it("measures the database's size into the storage budget as the month's high-water mark", async () => {
    const mres = must(await call("POST", base(), { kind: "postgres", name: "metered-db" }), 201, "create");
    await runWorker();
    const month = utcMonth();
    const budget = () => db().budget.findUnique({ where: { id: `bgt_${ws}_storage_${month}` } });
    const before = (await budget())?.usedUnits ?? 0;
    const now = new Date(Date.now() + 3_600_000);
    await measureManagedResources(50, now);
    const measured = must(await get(mres.id), 200, "read");
    expect(measured.size_bytes).toBeGreaterThan(1_000_000); // an empty PostgreSQL database is a few MB
    expect(measured.size_measured_at).toBe(now.toISOString());
    expect((await budget())!.usedUnits - before).toBeGreaterThanOrEqual(measured.size_bytes);
    // Measuring the same size again adds nothing.
    const after = (await budget())!.usedUnits;
    await measureManagedResources(50, new Date(now.getTime() + 3_600_000));
    expect((await budget())!.usedUnits).toBeLessThan(after + 1_000_000);
  });

  it("serves the database socket again after Capstan restarts (reconciler adopt), and only one of two racing reattaches wins", async () => {
    const product = await confirmedApp(owner, ws, { files: APP_FILES }, HEALTH_EDIT);
    const mres = must(
      await call("POST", base(), {
        kind: "postgres",
        name: "adopted-db",
        attach: { product_id: product.productId, environment_type: "preview" },
      }),
      201,
      "create",
    );
    await runWorker();
    const d = await deploy(owner, ws, product.revisionId);
    expect(d.status).toBe("active");
    expect((await viaPath(d.surface_id, "/db/write?v=before-restart")).status).toBe(200);
    // A restart: this process no longer serves the deployment's sockets.
    await closeBridgeSocket(d.id);
    await closeResourceSockets(d.id);
    expect((await viaPath(d.surface_id, "/db/read")).json.error).toMatch(/ECONNREFUSED|ENOENT|connect/);
    const report = await reconcileRunner();
    expect(report.adopted).toContain(d.id);
    expect((await viaPath(d.surface_id, "/db/read")).json.rows).toEqual([{ id: 1, body: "before-restart" }]);

    must(await call("POST", `${base()}/${mres.id}/detach`, {}), 200, "detach");
    const [a, b] = await Promise.all([
      call("POST", `${base()}/${mres.id}/reattach`, { product_id: product.productId }),
      call("POST", `${base()}/${mres.id}/reattach`, { product_id: otherProduct, env_var: "SECOND_DATABASE_URL" }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    expect(loser.json.reason).toBe("already_attached");
    const winner = a.status === 200 ? product.productId : otherProduct;
    expect((await db().managedResource.findUniqueOrThrow({ where: { id: mres.id } })).productId).toBe(winner);
  });

  it("fails with the reason in words when the server is unreachable, retries a failed destruction, and never provisions twice under two workers", async () => {
    const saved = process.env.CAPSTAN_MANAGED_POSTGRES_URL;
    process.env.CAPSTAN_MANAGED_POSTGRES_URL = "postgres://postgres@127.0.0.1:1/postgres";
    resetEnvCache();
    let failed: { id: string };
    try {
      failed = must(await call("POST", base(), { kind: "postgres", name: "unreachable-db" }), 201, "create");
      await runWorker();
      const r = must(await get(failed.id), 200, "read");
      expect(r).toMatchObject({
        status: "failed",
        failure: { code: "provision_failed", message: expect.stringContaining("ECONNREFUSED") },
      });
      // Deleting it at once (owner): the destruction fails too, is shown, and is retried later.
      must(await call("DELETE", `${base()}/${failed.id}?skip_grace_period=true`), 202, "delete");
      await runWorker();
      expect(must(await get(failed.id), 200, "read")).toMatchObject({
        status: "deleting",
        failure: { code: "destroy_failed" },
      });
    } finally {
      if (saved === undefined) delete process.env.CAPSTAN_MANAGED_POSTGRES_URL;
      else process.env.CAPSTAN_MANAGED_POSTGRES_URL = saved;
      resetEnvCache();
    }
    // The server is back; the retry is due (its back-off moved into the past): nothing to drop, it ends deleted.
    await db()
      .$executeRaw`UPDATE "managed_resources" SET "claimed_until" = now() - interval '1 second' WHERE "id" = ${failed.id}`;
    await runWorker();
    expect(must(await get(failed.id), 200, "read")).toMatchObject({ status: "deleted", failure: null });

    // Two workers at once: every resource is provisioned exactly once.
    const ids: string[] = [];
    for (const name of ["race-a", "race-b", "race-c"])
      ids.push(
        must(await call("POST", base(), { kind: name === "race-a" ? "postgres" : "object_bucket", name }), 201, name)
          .id,
      );
    await Promise.all([processManagedResources(50), processManagedResources(50)]);
    await runWorker();
    for (const id of ids) {
      expect(must(await get(id), 200, "read").status).toBe("available");
      const provisioned = await db().outboxEvent.count({
        where: { subject: id, type: "managed_resource.changed", data: { path: ["step"], equals: "provisioned" } },
      });
      expect(provisioned).toBe(1);
    }
  });

  it("keeps another workspace out: its product cannot be attached, and its members cannot see or change the resource", async () => {
    const mres = must(await call("POST", base(), { kind: "postgres", name: "private-db" }), 201, "create");
    const foreign = await call("POST", `${base()}/${mres.id}/reattach`, { product_id: strangerProduct });
    expect(foreign.status).toBe(422);
    expect(foreign.json).toMatchObject({ reason: "product_not_in_workspace", errors: [{ path: "/product_id" }] });
    const atCreate = await call("POST", base(), {
      kind: "postgres",
      name: "sneaky",
      attach: { product_id: strangerProduct },
    });
    expect(atCreate.status).toBe(422);
    expect(await db().managedResource.count({ where: { workspaceId: ws, name: "sneaky" } })).toBe(0);
    // The stranger, through their own workspace path: not found; through ours: forbidden.
    for (const [method, p, body] of [
      ["GET", `${base(strangerWs)}/${mres.id}`, undefined],
      ["POST", `${base(strangerWs)}/${mres.id}/reattach`, { product_id: strangerProduct }],
      ["POST", `${base(strangerWs)}/${mres.id}/detach`, {}],
      ["DELETE", `${base(strangerWs)}/${mres.id}`, undefined],
    ] as const) {
      expect((await call(method, p, body, stranger.token)).status).toBe(404);
    }
    expect((await call("GET", `${base()}/${mres.id}`, undefined, stranger.token)).status).toBe(403);
    expect(
      (await call("POST", `${base()}/${mres.id}/reattach`, { product_id: strangerProduct }, stranger.token)).status,
    ).toBe(403);
    const row = await db().managedResource.findUniqueOrThrow({ where: { id: mres.id } });
    expect(row.productId).toBeNull();
  });
});

describe.skipIf(testDbMode() !== "postgres")("the PostgreSQL pieces", () => {
  it("computes the SCRAM-SHA-256 verifier PostgreSQL itself stores for a password", async () => {
    const role = `mres_scramcheck${Date.now().toString(36)}`;
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    try {
      await c.query("SET password_encryption = 'scram-sha-256'");
      await c.query(`CREATE ROLE "${role}" LOGIN PASSWORD 'correct horse battery staple'`);
      const stored = (await c.query<{ p: string }>("SELECT rolpassword AS p FROM pg_authid WHERE rolname = $1", [role]))
        .rows[0]!.p;
      const m = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored)!;
      expect(scramVerifier("correct horse battery staple", Buffer.from(m[2]!, "base64"), Number(m[1]))).toBe(stored);
      expect(scramVerifier("another password", Buffer.from(m[2]!, "base64"), Number(m[1]))).not.toBe(stored);
    } finally {
      await c.query(`DROP ROLE IF EXISTS "${role}"`);
      await c.end();
    }
  });

  it("answers TLS and GSS requests with N, refuses malformed packets, other users and a closed gate in PostgreSQL's own error format", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "mres-sock-"));
    const socket = path.join(dir, ".s.PGSQL.5432");
    let open = true;
    const target = managedPostgresTarget()!;
    await serveResourceSockets(
      "dep_socketcheck",
      [{ kind: "postgres", resource_id: "mres_x", socket, user: "app_user", database: "app_db", upstream: target }],
      {
        gate: async () => (open ? null : "managed resource x is no longer attached"),
        bucket: () => async () => new Response(null, { status: 404 }),
      },
    );
    const talk = (packets: Buffer[]) =>
      new Promise<Buffer>((resolve) => {
        const s = net.connect(socket);
        const got: Buffer[] = [];
        s.on("data", (d) => got.push(d));
        s.on("close", () => resolve(Buffer.concat(got)));
        // Every case here ends with the forwarder closing the connection.
        s.on("connect", () => {
          for (const p of packets) s.write(p);
        });
      });
    const startup = (user: string, database: string) => {
      const body = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
      const head = Buffer.alloc(8);
      head.writeInt32BE(body.length + 8, 0);
      head.writeInt32BE(196608, 4);
      return Buffer.concat([head, body]);
    };
    const sslRequest = Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]);
    try {
      const refusedUser = await talk([sslRequest, startup("postgres", "app_db")]);
      expect(refusedUser.subarray(0, 1).toString()).toBe("N");
      expect(refusedUser.subarray(1, 2).toString()).toBe("E");
      expect(refusedUser.toString()).toContain(
        "only database app_db, as one of its current login roles (app_user when",
      );
      expect((await talk([Buffer.from([0, 0, 0, 4, 0, 0, 0, 0])])).toString()).toContain("invalid startup packet");
      open = false;
      expect((await talk([startup("app_user", "app_db")])).toString()).toContain("no longer attached");
    } finally {
      await closeResourceSockets("dep_socketcheck");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(testDbMode() !== "postgres")("a deployment's sockets", () => {
  it("stop within the normal time after refused, abandoned and half-sent connections on each of them (PostgreSQL, bucket, Bridge) and an app refused after a detach", async () => {
    const product = await confirmedApp(owner, ws, { files: APP_FILES }, HEALTH_EDIT);
    const pgRes = must(
      await call("POST", base(), { kind: "postgres", name: "stop-db", attach: { product_id: product.productId } }),
      201,
      "create",
    );
    must(
      await call("POST", base(), {
        kind: "object_bucket",
        name: "stop-bucket",
        attach: { product_id: product.productId },
      }),
      201,
      "create",
    );
    await runWorker();
    const d = await deploy(owner, ws, product.revisionId);
    expect(d.status).toBe("active");
    expect((await viaPath(d.surface_id, "/db/write?v=before-detach")).status).toBe(200);
    // The app keeps asking after a detach (what piled up half-open sockets): each ask is refused.
    must(await call("POST", `${base()}/${pgRes.id}/detach`, {}), 200, "detach");
    for (let i = 0; i < 3; i++) {
      const refused = (await viaPath(d.surface_id, "/db/read")).json;
      expect(refused.rows).toBeUndefined();
      expect(refused.error).toEqual(expect.stringMatching(/\S/));
    }

    const runtime = (await db().deployment.findUniqueOrThrow({ where: { id: d.id } })).runtime as {
      bridge_socket: string;
      resources: Array<{ kind: string; socket: string; user?: string }>;
    };
    const sockets = [{ kind: "bridge", socket: runtime.bridge_socket }, ...runtime.resources];
    expect(sockets.map((s) => s.kind).sort()).toEqual(["bridge", "object_bucket", "postgres"]);
    const open = (p: string, read = true) =>
      new Promise<net.Socket>((resolve, reject) => {
        const c = net.connect(p);
        c.on("error", () => undefined);
        if (!read) c.pause();
        c.once("connect", () => resolve(c));
        c.once("error", reject);
      });
    const startup = (user: string, database: string) => {
      const body = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
      const head = Buffer.alloc(8);
      head.writeInt32BE(body.length + 8, 0);
      head.writeInt32BE(196608, 4);
      return Buffer.concat([head, body]);
    };
    const clients: net.Socket[] = [];
    for (const s of sockets) {
      const pgKind = s.kind === "postgres";
      clients.push(await open(s.socket)); // abandoned: not a byte
      const half = await open(s.socket);
      half.write(pgKind ? startup("x", "y").subarray(0, 9) : "GET /x HTTP/1.1\r\nHost: x\r\n");
      const deaf = await open(s.socket, false); // refused, and never reads the answer
      deaf.write(pgKind ? startup("nobody", "nowhere") : "GET /../nope HTTP/1.1\r\nHost: x\r\n\r\n");
      clients.push(half, deaf);
    }
    // A stop used to hang here (the forwarder's close() waited on the refused, paused connection).
    const started = Date.now();
    const stopped = await Promise.race([
      call("POST", `/v1/workspaces/${ws}/deployments/${d.id}:stop`, {}),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("the stop did not answer within 30 s")), 30_000),
      ),
    ]);
    expect(stopped.status, stopped.text).toBe(200);
    expect(Date.now() - started).toBeLessThan(30_000);
    for (const c of clients) c.destroy();
  });
});

describe("an object bucket", () => {
  it("is a namespace the deployed app writes and reads through BUCKET_URL, measured into the storage budget", async () => {
    const mres = must(
      await call("POST", base(), { kind: "object_bucket", name: "uploads", attach: { product_id: app.productId } }),
      201,
      "create",
    );
    expect(mres).toMatchObject({
      kind: "object_bucket",
      secret: null,
      connection: { namespace: mres.id },
      attachment: { env_var: "BUCKET_URL" },
    });
    await runWorker();
    expect(must(await get(mres.id), 200, "read").status).toBe("available");
    const d = await deploy(owner, ws, app.revisionId);
    expect(d.status).toBe("active");
    expect((await viaPath(d.surface_id, "/bucket/put?key=notes/a.txt&v=hello")).status).toBe(200);
    expect((await viaPath(d.surface_id, "/bucket/get?key=notes/a.txt")).json).toEqual({ status: 200, body: "hello" });
    expect((await viaPath(d.surface_id, "/bucket/list?prefix=notes/")).json.items).toMatchObject([
      { key: "notes/a.txt", size_bytes: 5 },
    ]);
    await measureManagedResources(50, new Date(Date.now() + 7_200_000));
    expect(must(await get(mres.id), 200, "read").size_bytes).toBe(5);

    // Detached: the running app is refused at once; the objects stay.
    must(await call("POST", `${base()}/${mres.id}/detach`, {}), 200, "detach");
    expect((await viaPath(d.surface_id, "/bucket/get?key=notes/a.txt")).json.status).toBe(403);
    expect(await db().storageObject.count({ where: { productId: mres.id } })).toBe(1);
    // Deleted without the grace period (owner): the objects go.
    const del = await call("DELETE", `${base()}/${mres.id}?skip_grace_period=true`);
    expect(del.status).toBe(202);
    await runWorker();
    expect(must(await get(mres.id), 200, "read").status).toBe("deleted");
    expect(await db().storageObject.count({ where: { productId: mres.id } })).toBe(0);
  });
});

describe("bad input", () => {
  it("answers a problem document and changes nothing", async () => {
    const count = () => db().managedResource.count({ where: { workspaceId: ws } });
    const n = await count();
    for (const body of [
      { kind: "mysql", name: "x" },
      { kind: "object_bucket", name: "Not_A_Name" },
      { kind: "object_bucket", name: "ok", extra: 1 },
      { kind: "object_bucket", name: "ok", attach: { product_id: app.productId, env_var: "PORT" } },
      { kind: "object_bucket", name: "ok", attach: { product_id: app.productId, env_var: "CAPSTAN_X" } },
      { kind: "object_bucket", name: "ok", attach: { product_id: "prod_notanid" } },
    ]) {
      const r = await call("POST", base(), body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
    }
    expect(await count()).toBe(n);

    // An env var already given to another resource of the same product.
    const a = must(
      await call("POST", base(), {
        kind: "object_bucket",
        name: "first",
        attach: { product_id: otherProduct, env_var: "FILES_URL" },
      }),
      201,
      "first",
    );
    const clash = await call("POST", base(), {
      kind: "object_bucket",
      name: "second",
      attach: { product_id: otherProduct, env_var: "FILES_URL", environment_type: "production" },
    });
    expect(clash.status).toBe(409);
    expect(clash.json.reason).toBe("env_var_taken");
    // The same name twice.
    const dup = await call("POST", base(), { kind: "object_bucket", name: "first" });
    expect(dup.status).toBe(409);
    expect(dup.json.reason).toBe("name_taken");
    expect(await count()).toBe(n + 1);

    // Unknown id, reattach while attached, a second scheduled delete, skipping the grace as an admin.
    expect((await call("GET", `${base()}/mres_00000000000000000000000000`)).status).toBe(404);
    const attached = await call("POST", `${base()}/${a.id}/reattach`, { product_id: app.productId });
    expect(attached.status).toBe(409);
    expect(attached.json.reason).toBe("already_attached");
    must(await call("POST", `${base()}/${a.id}/detach`, {}), 200, "detach");
    must(await call("DELETE", `${base()}/${a.id}`), 202, "delete");
    const twice = await call("DELETE", `${base()}/${a.id}`);
    expect(twice.status).toBe(409);
    expect(twice.json.reason).toBe("deletion_scheduled");

    const admin = await makeUser();
    must(
      await api("PUT", `/v1/workspaces/${ws}/members/${admin.userId}`, { token: owner.token, body: { role: "admin" } }),
      200,
      "member",
    );
    const skip = await call("DELETE", `${base()}/${a.id}?skip_grace_period=true`, undefined, admin.token);
    expect(skip.status).toBe(403);
    expect(must(await get(a.id), 200, "read").status).toBe("deletion_scheduled");
    const viewer = await makeUser();
    must(
      await api("PUT", `/v1/workspaces/${ws}/members/${viewer.userId}`, {
        token: owner.token,
        body: { role: "viewer" },
      }),
      200,
      "member",
    );
    expect((await call("POST", base(), { kind: "object_bucket", name: "viewer-made" }, viewer.token)).status).toBe(403);
    expect((await call("GET", base(), undefined, viewer.token)).status).toBe(200);
  });

  it("refuses postgres clearly when Capstan has no PostgreSQL server to manage (embedded PGlite)", async () => {
    const saved = { url: process.env.DATABASE_URL, managed: process.env.CAPSTAN_MANAGED_POSTGRES_URL };
    db(); // opened already: only the managed-server setting is looked at below
    delete process.env.DATABASE_URL;
    delete process.env.CAPSTAN_MANAGED_POSTGRES_URL;
    resetEnvCache();
    try {
      const r = await call("POST", base(), { kind: "postgres", name: "no-server" });
      expect(r.status).toBe(422);
      expect(r.json).toMatchObject({ reason: "managed_postgres_unavailable", errors: [{ path: "/kind" }] });
      expect(r.json.detail).toContain("PGlite");
    } finally {
      if (saved.url !== undefined) process.env.DATABASE_URL = saved.url;
      if (saved.managed !== undefined) process.env.CAPSTAN_MANAGED_POSTGRES_URL = saved.managed;
      resetEnvCache();
    }
    expect(await db().managedResource.count({ where: { workspaceId: ws, name: "no-server" } })).toBe(0);
  });

  it("holds the plan's resource count", async () => {
    const w = (await makeWorkspace(owner.token)).id;
    for (const name of ["one", "two"]) must(await call("POST", base(w), { kind: "object_bucket", name }), 201, name);
    const third = await call("POST", base(w), { kind: "object_bucket", name: "three" });
    expect(third.status).toBe(422);
    expect(third.json).toMatchObject({ reason: "managed_resource_limit_exceeded", limit: 2, plan: "free" });
  });
});
