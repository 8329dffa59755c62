import { readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { buildSync } from "esbuild";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialAccepted } from "@/server/domain/managed-resources/credentials.service";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { processRestarts } from "@/server/domain/managed-resources/credentials-restarts";
import { processCredentials, retireCredential } from "@/server/domain/managed-resources/credentials.worker";
import { heartbeat } from "@/server/domain/runners/runner-hosts.service";
import { processManagedResources } from "@/server/domain/managed-resources/managed-resources.worker";
import { destroyDatabase, scramVerifier } from "@/server/domain/managed-resources/postgres-admin";
import { dropRoles, roleState } from "@/server/domain/managed-resources/postgres-credentials";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { runner } from "@/server/runtime";
import { handleSurfaceRequest } from "./support/handlers";
import { api, makeUser, makeWorkspace, type TApiResult, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { testDbMode } from "./support/db";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";
import { rowsText } from "./support/json-text";

/**
 * Issue #33 item 5: credentials of a postgres resource, on the real
 * PostgreSQL server the tests run on, with a real app deployed by the real
 * worker and runner. (That server trusts loopback, so a password is proven
 * by the SCRAM verifier PostgreSQL stores, and a role's end by the role
 * being gone or unable to log in, and by the deployment's socket refusing it.)
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
let stranger: TTestUser;
let strangerWs: string;
/** Every response body, for the secret search. */
const seen: string[] = [];

const call = async (method: string, p: string, body?: unknown, token = owner.token): Promise<TApiResult> => {
  const r = await api(method, p, { token, ...(body !== undefined ? { body } : {}) });
  seen.push(r.text);
  return r;
};
const base = (w = ws) => `/v1/workspaces/${w}/managed-resources`;
const get = async (id: string) => must(await call("GET", `${base()}/${id}`), 200, "read");
const viaPath = async (srf: string, p: string) => {
  const r = await handleSurfaceRequest(new Request(`http://localhost:3000/s/${srf}${p}`), srf);
  const text = await r.text();
  try {
    return { status: r.status, json: JSON.parse(text) };
  } catch {
    return { status: r.status, json: { text } };
  }
};
async function runWorker(): Promise<void> {
  while ((await processManagedResources(50)) > 0) {
    /* next batch */
  }
}
/** The credential rows of a resource, as a comparable snapshot. */
const credRows = (resourceId: string) =>
  db().managedResourceCredential.findMany({ where: { resourceId }, orderBy: { id: "asc" } });

/** Whether PostgreSQL stores the SCRAM verifier of `password` for `role`. */
async function verifierMatches(role: string, password: string): Promise<boolean> {
  const stored = (
    await db().$queryRaw<Array<{ p: string | null }>>`SELECT rolpassword AS p FROM pg_authid WHERE rolname = ${role}`
  )[0]?.p;
  const m = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored ?? "");
  return !!m && scramVerifier(password, Buffer.from(m[2]!, "base64"), Number(m[1])) === stored;
}

/** One login through a deployment's PostgreSQL socket (host side), as `user`. */
async function viaSocket(
  socketDir: string,
  user: string,
  database: string,
): Promise<{ ok: true; session: string } | { ok: false; error: string }> {
  const c = new pg.Client({
    host: socketDir,
    port: 5432,
    user,
    database,
    password: "unused-the-server-trusts-loopback",
    connectionTimeoutMillis: 10_000,
  });
  try {
    await c.connect();
    const r = await c.query<{ s: string }>("SELECT session_user AS s");
    return { ok: true, session: r.rows[0]!.s };
  } catch (e) {
    return { ok: false, error: String((e as Error).message) };
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function direct<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  must(await api("PUT", `/v1/workspaces/${ws}/plan`, { token: owner.token, body: { plan: "team" } }), 200, "plan");
  app = await confirmedApp(owner, ws, { files: APP_FILES }, HEALTH_EDIT);
  stranger = await makeUser();
  strangerWs = (await makeWorkspace(stranger.token)).id;
  // This process is the runner host replacements are placed on.
  await heartbeat();
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
  if (testDbMode() === "postgres") {
    for (const r of await db().managedResource.findMany({ where: { kind: "postgres" } })) {
      if (!r.roleName || !r.dbName) continue;
      await destroyDatabase({ role: r.roleName, database: r.dbName }).catch(() => undefined);
      const roles = (await db().managedResourceCredential.findMany({ where: { resourceId: r.id } })).map(
        (c) => c.roleName,
      );
      await dropRoles([...roles, r.dbName]).catch(() => undefined);
    }
  }
});

describe.skipIf(testDbMode() !== "postgres")("credentials of a postgres resource", () => {
  it("rotation keeps the deployed app answering through the overlap (a request every 100 ms, none failing); the socket takes the old, new and read-only roles, then refuses the old one after the overlap, which the worker ends", async () => {
    const mres = must(
      await call("POST", base(), { kind: "postgres", name: "rotated-db", attach: { product_id: app.productId } }),
      201,
      "create",
    );
    const database: string = mres.connection.database;
    const firstRole: string = mres.connection.username;
    expect(firstRole).toBe(database);
    await runWorker();
    const created = await get(mres.id);
    expect(created.credentials).toEqual([
      { username: firstRole, access: "read_write", status: "active", created_at: expect.any(String), expires_at: null },
    ]);

    const d1 = await deploy(owner, ws, app.revisionId);
    expect(d1.status).toBe("active");
    expect((await viaPath(d1.surface_id, "/db/write?v=before-rotation")).status).toBe(200);
    const runtime = (await db().deployment.findUniqueOrThrow({ where: { id: d1.id } })).runtime as {
      resources: Array<{ kind: string; socket: string }>;
    };
    const socketDir = path.dirname(runtime.resources.find((r) => r.kind === "postgres")!.socket);

    // The app is asked every 100 ms from now until its old role's overlap ends.
    const failures: string[] = [];
    let answered = 0;
    let stop = false;
    const loop = (async () => {
      while (!stop) {
        const started = Date.now();
        const r = await viaPath(d1.surface_id, "/db/read").catch((e) => ({ status: 0, json: { error: String(e) } }));
        if (r.status === 200 && Array.isArray(r.json.rows) && r.json.rows.length >= 1) answered++;
        else failures.push(`${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
        await sleep(Math.max(0, 100 - (Date.now() - started)));
      }
    })();
    await until("the app answered a few times", () => answered >= 5 || failures.length > 0);

    const rotated = must(
      await call("POST", `${base()}/${mres.id}:rotate-credentials`, { previous_secret_expires_in: 3600 }),
      200,
      "rotate",
    );
    const newRole: string = rotated.connection.username;
    const password: string = rotated.secret.password;
    expect(newRole).toMatch(new RegExp(`^${database}_[a-z0-9]{8}$`));
    expect(rotated.login_role).toMatchObject({
      username: newRole,
      access: "read_write",
      status: "active",
      expires_at: null,
    });
    expect(rotated.secret.url).toContain(`${newRole}:${password}@`);
    expect(await verifierMatches(newRole, password)).toBe(true);
    expect(rotated.running_deployments).toEqual({ action: "restarting", deployment_ids: [d1.id] });
    expect(rotated.restarts).toEqual({ reason: "credentials_changed", in_progress: null, queued: [d1.id] });
    const expiresAt = new Date(
      rotated.credentials.find((c: { username: string }) => c.username === firstRole).expires_at,
    ).getTime();
    expect(expiresAt - Date.now()).toBeGreaterThan(3_500_000);
    expect(rotated.credentials).toEqual([
      expect.objectContaining({ username: firstRole, status: "retiring" }),
      expect.objectContaining({ username: newRole, status: "active", access: "read_write" }),
    ]);
    // Every other response: no password.
    const read = await get(mres.id);
    expect(read).not.toHaveProperty("secret");

    // During the overlap the socket takes both roles (and a read-only one), and nothing else.
    expect(await viaSocket(socketDir, firstRole, database)).toEqual({ ok: true, session: firstRole });
    expect(await viaSocket(socketDir, newRole, database)).toEqual({ ok: true, session: newRole });
    const ro = must(await call("POST", `${base()}/${mres.id}/read-only-credential`, {}), 201, "read-only");
    expect(await viaSocket(socketDir, ro.login_role.username, database)).toEqual({
      ok: true,
      session: ro.login_role.username,
    });
    expect(await viaSocket(socketDir, "postgres", database)).toMatchObject({
      ok: false,
      error: expect.stringContaining(`only database ${database}`),
    });
    expect(await viaSocket(socketDir, `${database}_notarole`, database)).toMatchObject({
      ok: false,
      error: expect.stringContaining("not a current credential"),
    });

    // A second rotation during the overlap: a precise 409, nothing changed.
    const rowsBefore = await credRows(mres.id);
    const again = await call("POST", `${base()}/${mres.id}:rotate-credentials`, {});
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ reason: "credential_rotation_in_progress", previous_username: firstRole });
    expect(await credRows(mres.id)).toEqual(rowsBefore);
    expect((await get(mres.id)).updated_at).toBe(rotated.updated_at);

    // The restart: a new deployment of the same revision receives the new role and takes the surface over once healthy;
    // the app keeps answering through it.
    expect(await processRestarts()).toBe(1);
    const d2 = await db().deployment.findFirstOrThrow({ where: { replacesDeploymentId: d1.id } });
    expect(d2).toMatchObject({ status: "planned", replaceReason: "credentials_changed", revisionId: d1.revision_id });
    expect((await get(mres.id)).restarts).toEqual({ reason: "credentials_changed", in_progress: d1.id, queued: [] });
    expect(await processPlannedDeployments(5)).toBeGreaterThanOrEqual(1);
    const srf: string = d1.surface_id;
    expect((await db().surface.findUniqueOrThrow({ where: { id: srf } })).deploymentId).toBe(d2.id);
    const taken = answered;
    await until(
      "the app answered through the replacement for a while",
      () => answered >= taken + 20 || failures.length > 0,
      120_000,
    );
    stop = true;
    await loop;
    expect(failures, failures.join("\n")).toEqual([]);
    expect(answered).toBeGreaterThanOrEqual(30);
    expect((await db().deployment.findUniqueOrThrow({ where: { id: d1.id } })).status).toBe("superseded");
    await processRestarts();
    expect((await get(mres.id)).restarts).toBeNull();

    // The replacement holds the new role, which runs as the owner and sees the same rows; it writes one too.
    expect((await viaPath(srf, "/db/whoami")).json).toEqual({ s: newRole, u: database, n: 1 });
    expect((await viaPath(srf, "/db/write?v=after-rotation")).status).toBe(200);

    // The overlap ends (its deadline moved, not a sleep): the socket refuses the old role at once, before any worker.
    await db()
      .$executeRaw`UPDATE "managed_resource_credentials" SET "expires_at" = now() - interval '1 second' WHERE "role_name" = ${firstRole}`;
    const socketDir2 = path.dirname(
      (
        (await db().deployment.findUniqueOrThrow({ where: { id: d2.id } })).runtime as {
          resources: Array<{ kind: string; socket: string }>;
        }
      ).resources[0]!.socket,
    );
    expect(await viaSocket(socketDir2, firstRole, database)).toMatchObject({
      ok: false,
      error: expect.stringContaining(`role ${firstRole} is not a current credential`),
    });
    expect(await viaSocket(socketDir2, newRole, database)).toEqual({ ok: true, session: newRole });
    // The worker ends it: the first role owns the data, so it stays as a role that cannot log in.
    expect(await processCredentials()).toBeGreaterThanOrEqual(1);
    expect(await roleState(firstRole)).toEqual({ exists: true, login: false });
    await expect(
      direct(`postgresql://${firstRole}@127.0.0.1:5432/${database}`, (c) => c.query("SELECT 1")),
    ).rejects.toThrow(/not permitted to log in/);
    expect((await get(mres.id)).credentials.map((c: { username: string }) => c.username)).toEqual([
      newRole,
      ro.login_role.username,
    ]);

    // Revoking the read-only credential: refused by the socket at once, the role dropped.
    const revoked = must(await call("DELETE", `${base()}/${mres.id}/read-only-credential`), 200, "revoke read-only");
    expect(revoked.credentials.map((c: { username: string }) => c.username)).toEqual([newRole]);
    expect(await viaSocket(socketDir2, ro.login_role.username, database)).toMatchObject({ ok: false });
    expect(await roleState(ro.login_role.username)).toEqual({ exists: false, login: false });

    // A rotation with no overlap drops the previous (non-owner) role at once; what it wrote stays (it ran as the owner).
    const third = must(
      await call("POST", `${base()}/${mres.id}:rotate-credentials`, { previous_secret_expires_in: 0 }),
      200,
      "rotate with no overlap",
    );
    expect(await roleState(newRole)).toEqual({ exists: false, login: false });
    expect(third.credentials.map((c: { username: string }) => c.username)).toEqual([third.connection.username]);
    expect(third.running_deployments).toEqual({ action: "restarting", deployment_ids: [d2.id] });
    await processRestarts();
    await processPlannedDeployments(5);
    expect((await viaPath(srf, "/db/read")).json.rows.map((r: { body: string }) => r.body)).toEqual([
      "before-rotation",
      "after-rotation",
    ]);
    expect((await viaPath(srf, "/db/whoami")).json).toMatchObject({ s: third.connection.username, u: database });
    await processRestarts();
    expect((await get(mres.id)).restarts).toBeNull();

    // Each credential step is an event; each rotation and revocation an audit record; no password in any of them.
    const steps = (
      await db().outboxEvent.findMany({
        where: { subject: mres.id, type: "managed_resource.credential_changed" },
        orderBy: { createdAt: "asc" },
      })
    ).map(
      (e) =>
        `${(e.data as { username: string }).username === firstRole ? "first" : (e.data as { username: string }).username === newRole ? "second" : (e.data as { access: string }).access === "read_only" ? "ro" : "third"}:${(e.data as { step: string }).step}`,
    );
    expect(steps).toEqual([
      "first:replaced",
      "second:activated",
      "ro:activated",
      "first:overlap_ended",
      "first:revoked",
      "ro:revoke_requested",
      "ro:revoked",
      "second:replaced",
      "third:activated",
      "second:overlap_ended",
      "second:revoked",
    ]);
    const audits = await db().auditRecord.findMany({
      where: { workspaceId: ws, targetKind: "managed_resource_credential" },
      orderBy: { seq: "asc" },
    });
    expect(audits.map((a) => `${a.action}:${(a.details as { step: string }).step}`)).toEqual([
      "credential.created:rotated",
      "credential.created:read_only_created",
      "credential.revoked:read_only_revoked",
      "credential.created:rotated",
    ]);
    const secrets = [password, ro.secret.password, third.secret.password];
    const events = await db().outboxEvent.findMany({ where: { workspaceId: ws } });
    for (const s of secrets) {
      expect(seen.filter((t) => t.includes(s)).length).toBe(1);
      expect(rowsText(events)).not.toContain(s);
      expect(rowsText(audits)).not.toContain(s);
      expect(JSON.stringify(await credRows(mres.id))).not.toContain(s);
    }
  }, 300_000);

  it("attaching and detaching restart the product's running deployments one at a time, so they gain and lose DATABASE_URL without a redeploy", async () => {
    const product = await confirmedApp(owner, ws, { files: APP_FILES }, HEALTH_EDIT);
    const a = await deploy(owner, ws, product.revisionId, { environment_type: "preview" });
    const b = await deploy(owner, ws, product.revisionId, { environment_type: "staging" });
    expect([a.status, b.status]).toEqual(["active", "active"]);
    expect((await viaPath(a.surface_id, "/env")).json.has_database_url).toBe(false);
    const mres = must(
      await call("POST", base(), { kind: "postgres", name: "late-db", attach: { product_id: product.productId } }),
      201,
      "create",
    );
    // Queued once the database exists (a restart before would not receive it).
    expect(mres.restarts).toBeNull();
    await runWorker();
    expect((await get(mres.id)).restarts).toEqual({
      reason: "managed_resource_attached",
      in_progress: null,
      queued: [a.id, b.id],
    });
    // One at a time: the second is asked for only once the first replacement is done.
    await processRestarts();
    expect((await get(mres.id)).restarts).toEqual({
      reason: "managed_resource_attached",
      in_progress: a.id,
      queued: [b.id],
    });
    await processRestarts();
    expect((await get(mres.id)).restarts).toEqual({
      reason: "managed_resource_attached",
      in_progress: a.id,
      queued: [b.id],
    });
    expect(await db().deployment.count({ where: { replacesDeploymentId: { in: [a.id, b.id] } } })).toBe(1);
    await processPlannedDeployments(5);
    await processRestarts();
    expect((await get(mres.id)).restarts).toEqual({
      reason: "managed_resource_attached",
      in_progress: b.id,
      queued: [],
    });
    await processPlannedDeployments(5);
    await processRestarts();
    expect((await get(mres.id)).restarts).toBeNull();
    for (const d of [a, b]) {
      expect((await viaPath(d.surface_id, "/env")).json.has_database_url).toBe(true);
      expect((await db().deployment.findUniqueOrThrow({ where: { id: d.id } })).reasonCode).toBe("replaced");
    }
    expect((await viaPath(a.surface_id, "/db/write?v=attached")).status).toBe(200);

    const detached = must(await call("POST", `${base()}/${mres.id}/detach`, {}), 200, "detach");
    expect(detached.restarts).toMatchObject({
      reason: "managed_resource_detached",
      in_progress: null,
      queued: expect.arrayContaining([]),
    });
    expect(detached.restarts.queued).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      await processRestarts();
      await processPlannedDeployments(5);
    }
    await processRestarts();
    expect((await get(mres.id)).restarts).toBeNull();
    expect((await viaPath(a.surface_id, "/env")).json.has_database_url).toBe(false);
    expect((await viaPath(b.surface_id, "/env")).json.has_database_url).toBe(false);
  }, 300_000);

  it("a read-only credential can SELECT every table, also one created later, but an INSERT is refused with PostgreSQL's permission error; one at a time", async () => {
    const mres = must(await call("POST", base(), { kind: "postgres", name: "reporting-db" }), 201, "create");
    await runWorker();
    await direct(mres.secret.url, async (c) => {
      await c.query("CREATE TABLE orders (id serial PRIMARY KEY, total int NOT NULL)");
      await c.query("INSERT INTO orders (total) VALUES (42)");
    });
    // Detached is fine for a read-only credential (it is for people and tools, not the app).
    const ro = must(await call("POST", `${base()}/${mres.id}/read-only-credential`, {}), 201, "read-only");
    expect(ro.login_role).toMatchObject({
      access: "read_only",
      status: "active",
      username: expect.stringMatching(new RegExp(`^${mres.connection.database}_ro_`)),
    });
    expect(await verifierMatches(ro.login_role.username, ro.secret.password)).toBe(true);
    const got = await direct(ro.secret.url, async (c) => (await c.query("SELECT total FROM orders")).rows);
    expect(got).toEqual([{ total: 42 }]);
    const insert = await direct(ro.secret.url, (c) =>
      c.query("INSERT INTO orders (total) VALUES (1)").then(
        () => null,
        (e: { code?: string; message?: string }) => e,
      ),
    );
    expect(insert).toMatchObject({ code: "42501", message: "permission denied for table orders" });
    const create = await direct(ro.secret.url, (c) =>
      c.query("CREATE TABLE mine (x int)").then(
        () => null,
        (e: { code?: string }) => e,
      ),
    );
    expect(create).toMatchObject({ code: "42501" });
    // A table the app creates later is readable too (default privileges), and still not writable.
    await direct(mres.secret.url, async (c) => {
      await c.query("CREATE TABLE refunds (id serial PRIMARY KEY, amount int)");
      await c.query("INSERT INTO refunds (amount) VALUES (7)");
    });
    expect(await direct(ro.secret.url, async (c) => (await c.query("SELECT amount FROM refunds")).rows)).toEqual([
      { amount: 7 },
    ]);
    const update = await direct(ro.secret.url, (c) =>
      c.query("UPDATE refunds SET amount = 0").then(
        () => null,
        (e: { code?: string }) => e,
      ),
    );
    expect(update).toMatchObject({ code: "42501" });

    const rows = await credRows(mres.id);
    const second = await call("POST", `${base()}/${mres.id}/read-only-credential`, {});
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({ reason: "read_only_credential_exists", username: ro.login_role.username });
    expect(await credRows(mres.id)).toEqual(rows);

    must(await call("DELETE", `${base()}/${mres.id}/read-only-credential`), 200, "revoke");
    await expect(direct(ro.secret.url, (c) => c.query("SELECT 1"))).rejects.toThrow(/does not exist/);
    const none = await call("DELETE", `${base()}/${mres.id}/read-only-credential`);
    expect(none.status).toBe(409);
    expect(none.json.reason).toBe("no_read_only_credential");
    // The owner's data is untouched by the revocation.
    expect(
      await direct(mres.secret.url, async (c) => (await c.query("SELECT count(*)::int AS n FROM orders")).rows),
    ).toEqual([{ n: 1 }]);
  });

  it("refuses with a precise problem and changes nothing: a detached, provisioning, deleted or bucket resource, an overlap out of range, another workspace's resource", async () => {
    const snapshot = async (id: string) => ({
      resource: await db().managedResource.findUniqueOrThrow({ where: { id }, omit: { sealedSecret: false } }),
      creds: await credRows(id),
    });

    const detached = must(await call("POST", base(), { kind: "postgres", name: "idle-db" }), 201, "create");
    await runWorker();
    const before = await snapshot(detached.id);
    const notAttached = await call("POST", `${base()}/${detached.id}:rotate-credentials`, {});
    expect(notAttached.status).toBe(409);
    expect(notAttached.headers.get("content-type")).toContain("application/problem+json");
    expect(notAttached.json).toMatchObject({ reason: "not_attached", code: "conflict" });
    expect(notAttached.json.detail).toContain("not attached");
    expect(await snapshot(detached.id)).toEqual(before);

    for (const bad of [-1, 604_801, 1.5, "3600", null]) {
      const r = await call("POST", `${base()}/${detached.id}:rotate-credentials`, { previous_secret_expires_in: bad });
      expect(r.status, JSON.stringify(bad)).toBe(422);
      expect(r.json.errors).toEqual([expect.objectContaining({ path: "/previous_secret_expires_in" })]);
    }
    expect((await call("POST", `${base()}/${detached.id}:rotate-credentials`, { overlap: 60 })).status).toBe(422);
    expect(await snapshot(detached.id)).toEqual(before);

    // Attached but not provisioned yet.
    const fresh = must(
      await call("POST", base(), {
        kind: "postgres",
        name: "fresh-db",
        attach: { product_id: app.productId, env_var: "FRESH_DATABASE_URL" },
      }),
      201,
      "create",
    );
    const early = await call("POST", `${base()}/${fresh.id}:rotate-credentials`, {});
    expect(early.status).toBe(409);
    expect(early.json).toMatchObject({ reason: "resource_not_available", resource_status: "provisioning" });

    // A bucket has no credentials.
    const bucket = must(
      await call("POST", base(), { kind: "object_bucket", name: "files", attach: { product_id: app.productId } }),
      201,
      "bucket",
    );
    const noCreds = await call("POST", `${base()}/${bucket.id}/read-only-credential`, {});
    expect(noCreds.status).toBe(422);
    expect(noCreds.json.reason).toBe("credentials_postgres_only");

    // Deleted: rotation and read-only are refused.
    must(await call("DELETE", `${base()}/${detached.id}?skip_grace_period=true`), 202, "delete");
    await runWorker();
    expect((await get(detached.id)).status).toBe("deleted");
    const gone = await snapshot(detached.id);
    for (const [method, p] of [
      ["POST", ":rotate-credentials"],
      ["POST", "/read-only-credential"],
    ] as const) {
      const r = await call(method, `${base()}/${detached.id}${p}`, {});
      expect(r.status).toBe(409);
      expect(r.json.reason).toBe("resource_deleted");
    }
    expect(await snapshot(detached.id)).toEqual(gone);

    // Another workspace's resource through this workspace's path: 404, nothing changed; through its own path: 403.
    const theirs = must(
      await call("POST", base(strangerWs), { kind: "postgres", name: "theirs" }, stranger.token),
      201,
      "their create",
    );
    const theirsBefore = await snapshot(theirs.id);
    for (const [method, p] of [
      ["POST", ":rotate-credentials"],
      ["POST", ":revoke-previous-credentials"],
      ["POST", "/read-only-credential"],
      ["DELETE", "/read-only-credential"],
    ] as const) {
      const r = await call(method, `${base()}/${theirs.id}${p}`, method === "POST" ? {} : undefined);
      expect(r.status, `${method} ${p}`).toBe(404);
      const r2 = await call(method, `${base(strangerWs)}/${theirs.id}${p}`, method === "POST" ? {} : undefined);
      expect(r2.status, `${method} ${p} in their workspace`).toBe(403);
    }
    expect(await snapshot(theirs.id)).toEqual(theirsBefore);
  });

  it("ends a short overlap by itself, and survives a worker that died holding its claim and a request that died midway", async () => {
    const mres = must(
      await call("POST", base(), {
        kind: "postgres",
        name: "short-db",
        attach: { product_id: app.productId, env_var: "SHORT_DATABASE_URL" },
      }),
      201,
      "create",
    );
    await runWorker();
    const first: string = mres.connection.username;
    const r1 = must(
      await call("POST", `${base()}/${mres.id}:rotate-credentials`, { previous_secret_expires_in: 2 }),
      200,
      "rotate",
    );
    expect(await credentialAccepted(ws, mres.id, first)).toBe(true);
    await until("the overlap is over", async () => !(await credentialAccepted(ws, mres.id, first)), 30_000);
    // A worker claimed it and died: nobody else takes it until the claim lapses.
    await db()
      .$executeRaw`UPDATE "managed_resource_credentials" SET "claimed_until" = now() + interval '1 hour' WHERE "role_name" = ${first}`;
    await processCredentials();
    expect(await roleState(first)).toEqual({ exists: true, login: true });
    await db()
      .$executeRaw`UPDATE "managed_resource_credentials" SET "claimed_until" = now() - interval '1 second' WHERE "role_name" = ${first}`;
    await processCredentials();
    expect(await roleState(first)).toEqual({ exists: true, login: false });
    const done = await db().managedResourceCredential.findUniqueOrThrow({ where: { roleName: first } });
    expect(done).toMatchObject({ status: "revoked", claimedUntil: null });
    // Running it again changes nothing.
    await retireCredential(done.id, newId("evt"));
    expect(await db().managedResourceCredential.findUniqueOrThrow({ where: { roleName: first } })).toEqual(done);
    expect(await verifierMatches(r1.connection.username, r1.secret.password)).toBe(true);

    // A request that made its role and died before activating it: the worker fails it and drops the role.
    const orphan = `${mres.connection.database}_orphan01`;
    await db().$executeRawUnsafe(`CREATE ROLE "${orphan}" LOGIN`);
    await db().managedResourceCredential.create({
      data: {
        id: newId("mcred"),
        workspaceId: ws,
        resourceId: mres.id,
        kind: "primary",
        roleName: orphan,
        status: "pending",
        createdAt: new Date(Date.now() - 600_000),
        claimedUntil: new Date(Date.now() - 480_000),
      },
    });
    // Meanwhile a change of the resource waits for it (one change at a time).
    const blocked = await call("POST", `${base()}/${mres.id}/read-only-credential`, {});
    expect(blocked.status).toBe(409);
    expect(blocked.json.reason).toBe("credential_change_in_progress");
    await processCredentials();
    expect(await db().managedResourceCredential.findUniqueOrThrow({ where: { roleName: orphan } })).toMatchObject({
      status: "failed",
    });
    expect(await roleState(orphan)).toEqual({ exists: false, login: false });
    expect((await get(mres.id)).credentials.map((c: { username: string }) => c.username)).toEqual([
      r1.connection.username,
    ]);
  });
});
