import { randomBytes } from "node:crypto";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { processManagedResources } from "@/server/domain/managed-resources/managed-resources.worker";
import { destroyDatabase } from "@/server/domain/managed-resources/postgres-admin";
import { dropRoles } from "@/server/domain/managed-resources/postgres-credentials";
import { buildOpenApiDocument } from "@/server/http/openapi";
import { createRestHandler } from "@/server/http/rest-handler";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { oneTimeSecret } from "@/server/platform/one-time-secret";
import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { appRouter } from "@/server/trpc/root";
import { bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { testDbMode } from "./support/db";
import { handleRest } from "./support/handlers";
import {
  filesUnder,
  hasMarkedField,
  leaksOf,
  markedOperations,
  pgDump,
  secretValues,
  unmarkedSecretFields,
} from "./support/one-time-secrets";

/**
 * Issue #33 item 1: every operation in /v1/openapi.json whose response carries
 * a field marked as a one-time secret is called for real, then replayed with
 * the same Idempotency-Key: the replay has no marked field, and no secret value
 * appears in a full pg_dump of Capstan's database, in any log line (captured at
 * debug level) or in any file under the data directory. A new marked operation
 * without a fixture here fails; a secret-named response field without the mark
 * fails; planted operations that forget the mark or leak the value fail too.
 */
type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type THandle = (req: Request) => Promise<Response>;
type TCall = { path: string; body?: TJson; token?: string };

let owner: TTestUser;
let ws: string;
let platformToken: string;
const logLines: string[] = [];
const restoreWrites: Array<() => void> = [];

async function send(
  handle: THandle,
  method: string,
  path: string,
  token: string,
  body: TJson | undefined,
  key: string,
) {
  const headers = new Headers({ authorization: `Bearer ${token}`, "idempotency-key": key });
  if (body !== undefined) headers.set("content-type", "application/json");
  const res = await handle(
    new Request(`http://localhost:3000${path}`, {
      method: method.toUpperCase(),
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? (JSON.parse(text) as TJson) : undefined };
}

async function product(workspaceId: string): Promise<string> {
  const id = newId("prod");
  await db().product.create({
    data: {
      id,
      name: id,
      workspaceId,
      inputRevisionId: newId("rev"),
      repoUrl: "https://example.com/shop.git",
      ref: "main",
      createdBy: owner.userId,
    },
  });
  return id;
}

/** A provisioned postgres resource (attached to a new product when asked), for the credential operations. */
async function provisionedDb(attach: boolean): Promise<string> {
  const body = {
    kind: "postgres",
    name: `c-${randomBytes(3).toString("hex")}`,
    ...(attach ? { attach: { product_id: await product(ws) } } : {}),
  };
  const r = await send(handleRest, "post", `/v1/workspaces/${ws}/managed-resources`, owner.token, body, newId("evt"));
  while ((await processManagedResources(10)) > 0) {
    /* provision */
  }
  return r.json!.id as string;
}

/** How to call each marked operation (the identity, endpoint or resource it needs is made first). */
const FIXTURES: Record<string, () => Promise<TCall>> = {
  "post /v1/workspaces/{ws}/service-identities": async () => ({
    path: `/v1/workspaces/${ws}/service-identities`,
    body: { name: `s-${randomBytes(3).toString("hex")}`, product_id: await product(ws) },
  }),
  "post /v1/workspaces/{ws}/service-identities/{svc}:rotate-secret": async () => {
    const r = await send(
      handleRest,
      "post",
      `/v1/workspaces/${ws}/service-identities`,
      owner.token,
      { name: `r-${randomBytes(3).toString("hex")}`, product_id: await product(ws) },
      newId("evt"),
    );
    return { path: `/v1/workspaces/${ws}/service-identities/${r.json!.id}:rotate-secret`, body: {} };
  },
  "post /v1/platform/service-identities": async () => ({
    path: "/v1/platform/service-identities",
    body: { name: `p-${randomBytes(3).toString("hex")}` },
    token: platformToken,
  }),
  "post /v1/platform/service-identities/{svc}:rotate-secret": async () => {
    const r = await send(
      handleRest,
      "post",
      "/v1/platform/service-identities",
      platformToken,
      { name: `pr-${randomBytes(3).toString("hex")}` },
      newId("evt"),
    );
    return { path: `/v1/platform/service-identities/${r.json!.id}:rotate-secret`, body: {}, token: platformToken };
  },
  "post /v1/workspaces/{ws}/event-subscriptions": async () => ({
    path: `/v1/workspaces/${ws}/event-subscriptions`,
    body: { url: "https://hooks.example.com/in", event_types: ["*"] },
  }),
  "post /v1/workspaces/{ws}/event-subscriptions/{wb}:rotate-secret": async () => {
    const r = await send(
      handleRest,
      "post",
      `/v1/workspaces/${ws}/event-subscriptions`,
      owner.token,
      { url: "https://hooks.example.com/rot", event_types: ["*"] },
      newId("evt"),
    );
    return { path: `/v1/workspaces/${ws}/event-subscriptions/${r.json!.id}:rotate-secret`, body: {} };
  },
  "post /v1/workspaces/{ws}/products/{prod}/push-hook": async () => ({
    path: `/v1/workspaces/${ws}/products/${await product(ws)}/push-hook`,
    body: {},
  }),
  "post /v1/workspaces/{ws}/products/{prod}/push-hook:rotate-secret": async () => {
    const prod = await product(ws);
    await send(handleRest, "post", `/v1/workspaces/${ws}/products/${prod}/push-hook`, owner.token, {}, newId("evt"));
    return { path: `/v1/workspaces/${ws}/products/${prod}/push-hook:rotate-secret`, body: {} };
  },
  "post /v1/workspaces/{ws}/managed-resources": async () => ({
    path: `/v1/workspaces/${ws}/managed-resources`,
    body: { kind: "postgres", name: `db-${randomBytes(3).toString("hex")}` },
  }),
  "post /v1/workspaces/{ws}/managed-resources/{mres}:rotate-credentials": async () => ({
    path: `/v1/workspaces/${ws}/managed-resources/${await provisionedDb(true)}:rotate-credentials`,
    body: { previous_secret_expires_in: 60 },
  }),
  "post /v1/workspaces/{ws}/managed-resources/{mres}/read-only-credential": async () => ({
    path: `/v1/workspaces/${ws}/managed-resources/${await provisionedDb(false)}/read-only-credential`,
    body: {},
  }),
};

type TAudit = { problems: string[]; secrets: string[] };

/** Create and replay every marked operation of `doc` through `handle`, then search the dump, the logs and the files. */
async function audit(doc: TJson, handle: THandle, fixtures: Record<string, () => Promise<TCall>>): Promise<TAudit> {
  const problems = unmarkedSecretFields(doc).map((f) => `unmarked secret field: ${f}`);
  const secrets: string[] = [];
  for (const op of markedOperations(doc)) {
    const fixture = fixtures[op.key];
    if (!fixture) {
      problems.push(`no fixture for marked operation ${op.key}: add one to FIXTURES`);
      continue;
    }
    const call = await fixture();
    const key = `k-${randomBytes(8).toString("hex")}`;
    const first = await send(handle, op.method, call.path, call.token ?? owner.token, call.body, key);
    if (String(first.status) !== op.status) {
      problems.push(`${op.key}: expected ${op.status}, got ${first.status} ${first.text}`);
      continue;
    }
    const values = secretValues(first.json, op.paths);
    if (!values.length) problems.push(`${op.key}: the first response carried no secret at ${JSON.stringify(op.paths)}`);
    secrets.push(...values);
    const replay = await send(handle, op.method, call.path, call.token ?? owner.token, call.body, key);
    if (replay.status !== first.status || replay.headers.get("idempotent-replayed") !== "true") {
      problems.push(`${op.key}: the replay was not a replay (${replay.status})`);
    }
    if (hasMarkedField(replay.json, op.paths)) problems.push(`${op.key}: the replay carries a marked field`);
    for (const l of leaksOf(values, [{ where: "replay", text: replay.text }])) problems.push(`${op.key}: ${l}`);
  }
  const haystacks = [
    { where: "pg_dump", text: await pgDump(process.env.DATABASE_URL!) },
    { where: "log", text: logLines.join("") },
    ...filesUnder(process.env.CAPSTAN_DATA_DIR!).map((f) => ({ where: f.file, text: f.text })),
  ];
  problems.push(...leaksOf(secrets, haystacks));
  return { problems, secrets };
}

beforeAll(async () => {
  process.env.LOG_LEVEL = "debug";
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
      logLines.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
    };
    restoreWrites.push(() => (stream.write = original));
  }
  await bootApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
  const plan = await send(handleRest, "put", `/v1/workspaces/${ws}/plan`, owner.token, { plan: "team" }, newId("evt"));
  expect(plan.status, plan.text).toBe(200);
});

afterAll(async () => {
  for (const restore of restoreWrites) restore();
  if (testDbMode() === "postgres") {
    const left = await db().managedResource.findMany({ where: { kind: "postgres" } });
    for (const r of left) {
      if (!r.roleName || !r.dbName) continue;
      await destroyDatabase({ role: r.roleName, database: r.dbName }).catch(() => undefined);
      const roles = (await db().managedResourceCredential.findMany({ where: { resourceId: r.id } })).map(
        (c) => c.roleName,
      );
      await dropRoles([...roles, r.dbName]).catch(() => undefined);
    }
  }
});

describe.skipIf(testDbMode() !== "postgres")("one-time secrets", () => {
  it("every marked operation of /v1/openapi.json: the replay has no secret, and no secret is in pg_dump, a log or a file", async () => {
    const doc = buildOpenApiDocument("http://localhost:3000");
    const marked = markedOperations(doc)
      .map((o) => o.key)
      .sort();
    // The walk is not vacuous: the operations known to return a one-time secret are all marked.
    expect(marked).toEqual(Object.keys(FIXTURES).sort());
    const { problems, secrets } = await audit(doc, handleRest, FIXTURES);
    expect(problems).toEqual([]);
    expect(secrets.length).toBeGreaterThanOrEqual(Object.keys(FIXTURES).length);
    // The idempotency table holds the replays, without a secret.
    const stored = await db().idempotencyKey.findMany({ where: { principalId: { in: [owner.userId] } } });
    expect(stored.length).toBeGreaterThan(0);
  });

  describe("a planted operation", () => {
    const plantedPath = "/v1/workspaces/{ws}/planted-secrets";
    const plant = (output: z.ZodType, leak: boolean) =>
      router({
        app: appRouter,
        planted: workspaceProcedure("admin")
          .meta({
            openapi: { method: "POST", path: plantedPath, tags: ["Planted"], summary: "planted" },
            successStatus: 201,
          })
          .input(z.strictObject({ ws: z.string() }))
          .output(output)
          .mutation(() => {
            const value = `planted_${randomBytes(24).toString("base64url")}`;
            // A careless service that logs the value under an innocent name.
            if (leak) logger.info("planted.created", { note: value });
            return { id: newId("evt"), api_key: value };
          }),
      });
    const plantedFixture = {
      "post /v1/workspaces/{ws}/planted-secrets": async () => ({
        path: `/v1/workspaces/${ws}/planted-secrets`,
        body: {},
      }),
    };
    const appOnly = Object.fromEntries(
      Object.entries(FIXTURES).filter(([k]) => !k.includes("managed-resources") && !k.includes("platform")),
    );

    it("that forgets the mark fails the audit (its secret-named field), and its value sits in the idempotency table", async () => {
      const r = plant(z.object({ id: z.string(), api_key: z.string() }), false);
      const doc = buildOpenApiDocument("http://localhost:3000", r);
      expect(unmarkedSecretFields(doc)).toEqual([`post ${plantedPath} api_key`]);
      const handle = createRestHandler(r);
      const key = `k-${randomBytes(8).toString("hex")}`;
      const first = await send(handle, "post", `/v1/workspaces/${ws}/planted-secrets`, owner.token, {}, key);
      expect(first.status, first.text).toBe(201);
      const value = first.json!.api_key as string;
      const replay = await send(handle, "post", `/v1/workspaces/${ws}/planted-secrets`, owner.token, {}, key);
      expect(replay.json!.api_key).toBe(value); // unmarked: replayed, because stored
      expect(leaksOf([value], [{ where: "pg_dump", text: await pgDump(process.env.DATABASE_URL!) }])).toEqual([
        `pg_dump: ${value.slice(0, 8)}…`,
      ]);
    });

    it("that is marked is walked, replayed without the value and stores nothing; one that logs its marked value fails the audit", async () => {
      const marked = z.object({ id: z.string(), api_key: oneTimeSecret(z.string(), "planted") });
      const clean = plant(marked, false);
      const cleanDoc = buildOpenApiDocument("http://localhost:3000", clean);
      // Only the planted and the cheaper app operations here: the full walk is the test above.
      const fixtures = { ...appOnly, ...plantedFixture };
      const docOnly = {
        ...cleanDoc,
        paths: Object.fromEntries(
          Object.entries(cleanDoc.paths as TJson).filter(([p]) =>
            Object.keys(fixtures).some((k) => k.endsWith(` ${p}`)),
          ),
        ),
      };
      const ok = await audit(docOnly, createRestHandler(clean), fixtures);
      expect(ok.problems).toEqual([]);
      expect(ok.secrets.some((s) => s.startsWith("planted_"))).toBe(true);

      const leaky = plant(marked, true);
      const leakyDoc = buildOpenApiDocument("http://localhost:3000", leaky);
      const leakyOnly = { ...leakyDoc, paths: { [plantedPath]: leakyDoc.paths[plantedPath] } };
      const bad = await audit(leakyOnly, createRestHandler(leaky), plantedFixture);
      expect(bad.problems).toEqual([expect.stringMatching(/^log: planted/)]);
    });
  });
});
