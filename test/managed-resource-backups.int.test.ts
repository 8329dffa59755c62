import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertBackup } from "@/server/domain/managed-resources/backups.service";
import {
  backupBeforeDestroy,
  backupBlobs,
  expireBackups,
  processBackups,
  processRestores,
  scheduleBackups,
} from "@/server/domain/managed-resources/backups.worker";
import { processManagedResources } from "@/server/domain/managed-resources/managed-resources.worker";
import { destroyDatabase } from "@/server/domain/managed-resources/postgres-admin";
import { blobStore } from "@/server/platform/blob-store";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { testDbMode } from "./support/db";

/**
 * Issue #33 item 4: backups of a real managed database (pg_dump from the
 * PostgreSQL client packages, encrypted with the workspace's key, in the blob
 * store), restored into a fork and over the same resource by the worker, a
 * backup before destruction, and the refusals (another workspace's backup,
 * an admin restoring over, no confirmation, a bucket, a backup not finished)
 * that change nothing.
 */
let owner: TTestUser;
let admin: TTestUser;
let stranger: TTestUser;
let ws: string;
let strangerWs: string;
const base = (w = ws) => `/v1/workspaces/${w}/managed-resources`;

async function drain(): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const n = (await processManagedResources(20)) + (await processBackups(20)) + (await processRestores(20));
    if (n === 0) {
      // A fork's restore waits (a short lease) for the fork to be provisioned: wait for pending work to be claimable.
      const open = await db().managedResourceRestore.count({ where: { status: { in: ["pending", "running"] } } });
      if (!open) return;
      await db().managedResourceRestore.updateMany({
        where: { status: { in: ["pending", "running"] } },
        data: { claimedUntil: null },
      });
    }
  }
  throw new Error("the workers did not settle");
}

async function withDb<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The admin URL pointed at a resource's database (the test reads what a restore wrote). */
const adminUrlFor = (database: string) => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${database}`;
  return u.toString();
};
const rowsOf = async (database: string) =>
  (
    await withDb(adminUrlFor(database), (c) =>
      c.query<{ id: number; body: string }>("SELECT id, body FROM notes ORDER BY id"),
    )
  ).rows;

async function counts() {
  return {
    resources: await db().managedResource.count(),
    backups: await db().managedResourceBackup.count(),
    restores: await db().managedResourceRestore.count(),
  };
}

beforeAll(async () => {
  await bootApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  expect((await api("PUT", `/v1/workspaces/${ws}/plan`, { token: owner.token, body: { plan: "team" } })).status).toBe(
    200,
  );
  admin = await makeUser();
  expect(
    (await api("PUT", `/v1/workspaces/${ws}/members/${admin.userId}`, { token: owner.token, body: { role: "admin" } }))
      .status,
  ).toBe(200);
  stranger = await makeUser();
  strangerWs = (await makeWorkspace(stranger.token)).id;
});

afterAll(async () => {
  if (testDbMode() !== "postgres") return;
  const left = await db().managedResource.findMany({ where: { kind: "postgres" } });
  for (const r of left)
    if (r.roleName && r.dbName) await destroyDatabase({ role: r.roleName, database: r.dbName }).catch(() => undefined);
});

describe.skipIf(testDbMode() !== "postgres")("backups of a postgres resource", () => {
  it("a backup restored into a fork holds the rows written before it; over the same resource (owner, confirmed) it replaces what came after", async () => {
    const created = await api("POST", base(), { token: owner.token, body: { kind: "postgres", name: "orders" } });
    expect(created.status, created.text).toBe(201);
    const mres = created.json;
    await drain();
    // As the app would: with the resource's own credentials.
    await withDb(mres.secret.url, async (c) => {
      await c.query("CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)");
      await c.query("INSERT INTO notes VALUES (1, 'before-backup-one'), (2, 'before-backup-two')");
    });

    const requested = await api("POST", `${base()}/${mres.id}/backups`, { token: admin.token, body: {} });
    expect(requested.status, requested.text).toBe(202);
    expect(requested.json).toMatchObject({
      resource_id: mres.id,
      trigger: "on_demand",
      status: "pending",
      size_bytes: 0,
    });
    await drain();
    const backup = (await api("GET", `${base()}/${mres.id}/backups/${requested.json.id}`, { token: owner.token })).json;
    expect(backup).toMatchObject({ status: "completed", failure: null });
    expect(backup.size_bytes).toBeGreaterThan(100);
    // Retention per plan (team: 14 days).
    expect(Date.parse(backup.expires_at) - Date.parse(backup.created_at)).toBeGreaterThanOrEqual(
      14 * 86_400_000 - 1000,
    );
    // Encrypted at rest: the stored bytes do not contain the rows.
    const row = await db().managedResourceBackup.findUniqueOrThrow({ where: { id: backup.id } });
    const blob = (await backupBlobs(ws).get(row.blobSha256!))!;
    expect(blob.length).toBe(backup.size_bytes);
    expect(blob.includes(Buffer.from("before-backup-one"))).toBe(false);
    const events = await db().outboxEvent.findMany({ where: { subject: backup.id }, orderBy: { createdAt: "asc" } });
    expect(events.map((e) => (e.data as { step: string }).step)).toEqual(["request", "start", "complete"]);

    await withDb(adminUrlFor(mres.connection.database), (c) => c.query("INSERT INTO notes VALUES (3, 'after-backup')"));

    // Fork (admin): a new resource with the rows from before the backup.
    const fork = await api("POST", `${base()}/${mres.id}/backups/${backup.id}/restore`, {
      token: admin.token,
      body: { mode: "fork", name: "orders-fork" },
    });
    expect(fork.status, fork.text).toBe(202);
    expect(fork.json).toMatchObject({ mode: "fork", status: "pending", source_resource_id: mres.id });
    expect(fork.json.target_resource_id).not.toBe(mres.id);
    await drain();
    const forkDone = (await api("GET", `${base()}/${mres.id}/restores/${fork.json.id}`, { token: owner.token })).json;
    expect(forkDone).toMatchObject({ status: "completed", failure: null });
    const forkResource = (await api("GET", `${base()}/${fork.json.target_resource_id}`, { token: owner.token })).json;
    expect(forkResource).toMatchObject({ name: "orders-fork", status: "available", attachment: null });
    expect(await rowsOf(forkResource.connection.database)).toEqual([
      { id: 1, body: "before-backup-one" },
      { id: 2, body: "before-backup-two" },
    ]);
    // The fork's tables belong to its own role, not to the source's or the admin's.
    const owners = await withDb(adminUrlFor(forkResource.connection.database), (c) =>
      c.query<{ tableowner: string }>("SELECT tableowner FROM pg_tables WHERE tablename = 'notes'"),
    );
    expect(owners.rows).toEqual([{ tableowner: forkResource.connection.username }]);
    // The source is untouched.
    expect((await rowsOf(mres.connection.database)).map((r) => r.id)).toEqual([1, 2, 3]);

    // In place: an admin may not; the owner must confirm with the name; then the row written after the backup is gone.
    const byAdmin = await api("POST", `${base()}/${mres.id}/backups/${backup.id}/restore`, {
      token: admin.token,
      body: { mode: "in_place", confirm: "orders" },
    });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.json.reason).toBe("owner_required");
    const unconfirmed = await api("POST", `${base()}/${mres.id}/backups/${backup.id}/restore`, {
      token: owner.token,
      body: { mode: "in_place", confirm: "order" },
    });
    expect(unconfirmed.status).toBe(422);
    expect(unconfirmed.json.errors).toEqual([{ path: "/confirm", message: "must be the resource's name (orders)" }]);
    const before = await counts();
    const inPlace = await api("POST", `${base()}/${mres.id}/backups/${backup.id}/restore`, {
      token: owner.token,
      body: { mode: "in_place", confirm: "orders" },
    });
    expect(inPlace.status, inPlace.text).toBe(202);
    expect(await counts()).toEqual({ ...before, restores: before.restores + 1 });
    await drain();
    expect(
      (await api("GET", `${base()}/${mres.id}/restores/${inPlace.json.id}`, { token: owner.token })).json.status,
    ).toBe("completed");
    expect((await rowsOf(mres.connection.database)).map((r) => r.id)).toEqual([1, 2]);
  });

  it("refuses with a problem document and changes nothing: another workspace's backup, a bucket, a backup not finished, unknown fields", async () => {
    const mres = (await api("POST", base(), { token: owner.token, body: { kind: "postgres", name: "refusals" } })).json;
    await drain();
    const done = (await api("POST", `${base()}/${mres.id}/backups`, { token: owner.token, body: {} })).json;
    await drain();
    const pending = (await api("POST", `${base()}/${mres.id}/backups`, { token: owner.token, body: {} })).json;
    const bucket = (await api("POST", base(), { token: owner.token, body: { kind: "object_bucket", name: "files" } }))
      .json;
    const strangerRes = (
      await api("POST", base(strangerWs), { token: stranger.token, body: { kind: "postgres", name: "theirs" } })
    ).json;
    const before = await counts();

    const cases: Array<[string, string, string, unknown, number, string | undefined]> = [
      // Another workspace's backup through the stranger's own workspace and resource: not found.
      [
        "stranger restores our backup via their workspace",
        stranger.token,
        `${base(strangerWs)}/${strangerRes.id}/backups/${done.id}/restore`,
        { mode: "fork" },
        404,
        undefined,
      ],
      // Through ours: not a member.
      [
        "stranger restores through our workspace",
        stranger.token,
        `${base()}/${mres.id}/backups/${done.id}/restore`,
        { mode: "fork" },
        403,
        undefined,
      ],
      [
        "a backup under another resource's path",
        owner.token,
        `${base()}/${bucket.id}/backups/${done.id}/restore`,
        { mode: "fork" },
        404,
        undefined,
      ],
      ["a bucket has no backups", owner.token, `${base()}/${bucket.id}/backups`, {}, 422, "backups_postgres_only"],
      [
        "a backup not finished",
        owner.token,
        `${base()}/${mres.id}/backups/${pending.id}/restore`,
        { mode: "fork" },
        409,
        "backup_not_completed",
      ],
      [
        "an unknown mode",
        owner.token,
        `${base()}/${mres.id}/backups/${done.id}/restore`,
        { mode: "merge" },
        422,
        undefined,
      ],
      [
        "confirm on a fork",
        owner.token,
        `${base()}/${mres.id}/backups/${done.id}/restore`,
        { mode: "fork", confirm: "refusals" },
        422,
        undefined,
      ],
      [
        "a fork named like an existing resource",
        owner.token,
        `${base()}/${mres.id}/backups/${done.id}/restore`,
        { mode: "fork", name: "files" },
        409,
        "name_taken",
      ],
    ];
    for (const [what, token, path, body, status, reason] of cases) {
      const r = await api("POST", path, { token, body });
      expect(r.status, `${what}: ${r.text}`).toBe(status);
      expect(r.headers.get("content-type"), what).toContain("application/problem+json");
      if (reason) expect(r.json.reason, what).toBe(reason);
    }
    const listed = await api("GET", `${base(strangerWs)}/${strangerRes.id}/backups/${done.id}`, {
      token: stranger.token,
    });
    expect(listed.status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it("an expired backup's blob is deleted, once, with the row kept; another workspace's backups and blobs are untouched", async () => {
    const ours = (await api("POST", base(), { token: owner.token, body: { kind: "postgres", name: "expiring" } })).json;
    const theirs = (
      await api("POST", base(strangerWs), { token: stranger.token, body: { kind: "postgres", name: "kept" } })
    ).json;
    await drain();
    const take = async (w: string, token: string, id: string) => {
      const r = await api("POST", `${base(w)}/${id}/backups`, { token, body: {} });
      expect(r.status, r.text).toBe(202);
      return r.json.id as string;
    };
    const [old, legacy, fresh, strangers] = [
      await take(ws, owner.token, ours.id),
      await take(ws, owner.token, ours.id),
      await take(ws, owner.token, ours.id),
      await take(strangerWs, stranger.token, theirs.id),
    ];
    await drain();
    const rowOf = (id: string) => db().managedResourceBackup.findUniqueOrThrow({ where: { id } });
    const sha = Object.fromEntries(
      await Promise.all([old, legacy, fresh, strangers].map(async (id) => [id, (await rowOf(id)).blobSha256!])),
    );
    // Each backup is stored in its workspace's scope, none in the shared store.
    for (const id of [old, legacy, fresh]) expect(await backupBlobs(ws).has(sha[id]), id).toBe(true);
    expect(await backupBlobs(strangerWs).has(sha[strangers])).toBe(true);
    for (const id of [old, legacy, fresh, strangers]) expect(await blobStore().has(sha[id]), id).toBe(false);
    // One made before backups had a scope: its bytes in the shared store.
    const bytes = (await backupBlobs(ws).get(sha[legacy]))!;
    await blobStore().put(bytes);
    await backupBlobs(ws).delete(sha[legacy]);

    // Past their retention: two of ours (the stranger's, taken at the same time, is within its own).
    const past = new Date(Date.now() - 1000);
    await db().managedResourceBackup.updateMany({ where: { id: { in: [old, legacy] } }, data: { expiresAt: past } });
    expect(await expireBackups()).toBe(2);
    for (const id of [old, legacy]) {
      expect(await rowOf(id), id).toMatchObject({ status: "expired", blobSha256: null });
      expect(await backupBlobs(ws).has(sha[id]), id).toBe(false);
      expect(await blobStore().has(sha[id]), id).toBe(false);
    }
    const listed = (await api("GET", `${base()}/${ours.id}/backups/${old}`, { token: owner.token })).json;
    expect(listed).toMatchObject({ status: "expired" });
    // Our backup within its retention and the other workspace's: as they were, and their bytes still restore.
    expect(await rowOf(fresh)).toMatchObject({ status: "completed", blobSha256: sha[fresh] });
    expect(await rowOf(strangers)).toMatchObject({ status: "completed", blobSha256: sha[strangers] });
    expect((await backupBlobs(strangerWs).get(sha[strangers]))?.length).toBe(
      Number((await rowOf(strangers)).sizeBytes),
    );
    expect(await backupBlobs(ws).has(sha[fresh])).toBe(true);

    // Again: nothing expires, nothing more is deleted, nothing fails; one expire event per backup.
    const events = () => db().outboxEvent.count({ where: { subject: { in: [old, legacy] } } });
    const eventsBefore = await events();
    expect(await expireBackups()).toBe(0);
    expect(await events()).toBe(eventsBefore);
    expect(await backupBlobs(strangerWs).has(sha[strangers])).toBe(true);
    expect(await backupBlobs(ws).has(sha[fresh])).toBe(true);
    const steps = await db().outboxEvent.findMany({ where: { subject: old }, orderBy: { createdAt: "asc" } });
    expect(steps.map((e) => (e.data as { step: string }).step)).toEqual(["request", "start", "complete", "expire"]);
  });

  it("an expired backup whose blob deletion was interrupted has it deleted on the next pass", async () => {
    const mres = await db().managedResource.findFirstOrThrow({ where: { workspaceId: ws, name: "expiring" } });
    const r = await api("POST", `${base()}/${mres.id}/backups`, { token: owner.token, body: {} });
    expect(r.status, r.text).toBe(202);
    await drain();
    const row = await db().managedResourceBackup.findUniqueOrThrow({ where: { id: r.json.id } });
    expect(await backupBlobs(ws).has(row.blobSha256!)).toBe(true);
    // As after a crash between the status commit and the deletion: expired, its blob still named and present.
    await db().managedResourceBackup.update({ where: { id: row.id }, data: { status: "expired" } });
    expect(await expireBackups()).toBe(0);
    expect(await backupBlobs(ws).has(row.blobSha256!)).toBe(false);
    expect(await db().managedResourceBackup.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      status: "expired",
      blobSha256: null,
    });
  });

  it("the backup before a destroy runs once, under its lease: one another run holds is left to it, and the backup worker beside it never runs it twice", async () => {
    const mres = (await api("POST", base(), { token: owner.token, body: { kind: "postgres", name: "leased" } })).json;
    await drain();
    const starts = async (id: string) =>
      (await db().outboxEvent.findMany({ where: { subject: id, type: "managed_resource.backup_changed" } })).filter(
        (e) => (e.data as { step?: string }).step === "start",
      ).length;
    // Held by another run (a worker's lease): the destroy's backup leaves it alone and says it is not done yet.
    const held = await scopedDb(ws).$transaction((tx) =>
      insertBackup(tx, {
        workspaceId: ws,
        resourceId: mres.id,
        trigger: "pre_destroy",
        createdBy: null,
        correlationId: "evt_test",
        claimSeconds: 600,
      }),
    );
    expect(await backupBeforeDestroy(ws, mres.id)).toBe(false);
    expect(await processBackups(20)).toBe(0);
    expect(await db().managedResourceBackup.findUniqueOrThrow({ where: { id: held.id } })).toMatchObject({
      status: "pending",
    });
    expect(await starts(held.id)).toBe(0);

    // Its lease lapses: the destroy's backup and two worker passes race for it; exactly one run takes it.
    await db().managedResourceBackup.update({ where: { id: held.id }, data: { claimedUntil: null } });
    await Promise.all([backupBeforeDestroy(ws, mres.id), processBackups(20), processBackups(20)]);
    expect(await db().managedResourceBackup.findUniqueOrThrow({ where: { id: held.id } })).toMatchObject({
      status: "completed",
    });
    expect(await starts(held.id)).toBe(1);
    expect(await backupBeforeDestroy(ws, mres.id)).toBe(true);

    // A backup the destroy makes itself is born claimed: worker passes beside it find nothing to run.
    const other = (await api("POST", base(), { token: owner.token, body: { kind: "postgres", name: "leased-two" } }))
      .json;
    await drain();
    const [ran, ...passes] = await Promise.all([
      backupBeforeDestroy(ws, other.id),
      processBackups(20),
      processBackups(20),
    ]);
    expect(ran).toBe(true);
    expect(passes).toEqual([0, 0]);
    const made = await db().managedResourceBackup.findFirstOrThrow({
      where: { resourceId: other.id, trigger: "pre_destroy" },
    });
    expect(made.status).toBe("completed");
    expect(await starts(made.id)).toBe(1);
  });

  it("takes a backup before destroying a database and keeps it; schedules daily backups and expires them after the retention", async () => {
    const mres = (await api("POST", base(), { token: owner.token, body: { kind: "postgres", name: "doomed" } })).json;
    await drain();
    expect(await scheduleBackups()).toBeGreaterThanOrEqual(1);
    const scheduled = await db().managedResourceBackup.findFirstOrThrow({
      where: { resourceId: mres.id, trigger: "scheduled" },
    });
    expect(scheduled.status).toBe("pending");
    // Not twice within the interval.
    await scheduleBackups();
    expect(await db().managedResourceBackup.count({ where: { resourceId: mres.id, trigger: "scheduled" } })).toBe(1);
    await drain();

    expect((await api("DELETE", `${base()}/${mres.id}?skip_grace_period=true`, { token: owner.token })).status).toBe(
      202,
    );
    await drain();
    expect((await api("GET", `${base()}/${mres.id}`, { token: owner.token })).json.status).toBe("deleted");
    const list = (await api("GET", `${base()}/${mres.id}/backups`, { token: owner.token })).json;
    expect(list.items.map((b: { trigger: string; status: string }) => `${b.trigger}:${b.status}`).sort()).toEqual([
      "pre_destroy:completed",
      "scheduled:completed",
    ]);
    // After the retention: expired (in a month's time, all of them).
    expect(await expireBackups(new Date(Date.now() + 40 * 86_400_000))).toBeGreaterThanOrEqual(2);
    const after = (await api("GET", `${base()}/${mres.id}/backups`, { token: owner.token })).json;
    expect(after.items.every((b: { status: string }) => b.status === "expired")).toBe(true);
  });
});
