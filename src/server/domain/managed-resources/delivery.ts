import type { Deployment } from "@/generated/prisma/client";
import { unseal } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { problemBody } from "@/server/platform/errors";
import { scopedDb } from "@/server/platform/db/scoped";
import { likeLiteral } from "@/server/platform/like";
import type { TResourceHandlers, TResourceSpec } from "@/server/runtime/resource-sockets";
import { credentialAccepted } from "./credentials.service";
import { managedPostgresTarget } from "./postgres-admin";
import { deleteObject, getObject, MAX_OBJECT_BYTES, putObject } from "./bucket-objects";

/**
 * How a deployment receives its managed resources (docs/decisions.md
 * "Managed resources"): at deploy time, every available resource attached
 * to its product (for all environments or its own) becomes a socket in its
 * sandbox plus an env var; the use is recorded (`used_by`). While it runs,
 * each new connection or request asks `gate` whether the resource is still
 * attached to the deployment's product and available, so a detach takes
 * effect at once for new connections.
 */
type TDep = Pick<Deployment, "id" | "workspaceId" | "productId" | "environmentType">;

export async function deploymentResources(dep: TDep): Promise<TResourceSpec[]> {
  const rows = await scopedDb(dep.workspaceId).managedResource.findMany({
    where: {
      productId: dep.productId,
      status: "available",
      OR: [{ environmentType: null }, { environmentType: dep.environmentType }],
    },
    orderBy: { attachedAt: "asc" },
    omit: { sealedSecret: false },
  });
  const specs: TResourceSpec[] = [];
  const target = managedPostgresTarget();
  for (const r of rows) {
    const envVar = r.envVar ?? (r.kind === "postgres" ? "DATABASE_URL" : "BUCKET_URL");
    if (r.kind === "postgres") {
      if (!target || !r.sealedSecret || !r.roleName || !r.dbName) continue;
      const { password } = JSON.parse(unseal(r.sealedSecret, r.id)) as { password: string };
      specs.push({
        kind: "postgres",
        resourceId: r.id,
        envVar,
        user: r.roleName,
        database: r.dbName,
        password,
        upstream: target,
      });
    } else {
      specs.push({ kind: "object_bucket", resourceId: r.id, envVar });
    }
  }
  if (specs.length) {
    // db(): the scoped client creates child rows one by one only (no createMany); the resources were read scoped above.
    // platform-scoped: the scoped client creates child rows one by one only (no createMany); the resources were read scoped above.
    await db().managedResourceUse.createMany({
      data: specs.map((s) => ({ deploymentId: dep.id, resourceId: s.resourceId, envVar: s.envVar })),
      skipDuplicates: true,
    });
  }
  return specs;
}

/**
 * Null when the deployment may use the resource now, else the reason in
 * words. A PostgreSQL login also names its user: one of the resource's
 * current credentials (the overlap of a rotation is exact here).
 */
async function gate(dep: TDep, resourceId: string, login?: { user: string }): Promise<string | null> {
  const r = await scopedDb(dep.workspaceId).managedResource.findUnique({
    where: { id: resourceId },
    select: { productId: true, environmentType: true, status: true, name: true },
  });
  if (!r || r.status !== "available") return `managed resource ${resourceId} is not available`;
  if (r.productId !== dep.productId || (r.environmentType !== null && r.environmentType !== dep.environmentType)) {
    return `managed resource ${r.name} is no longer attached to this deployment's product; redeploy after reattaching it`;
  }
  if (login && !(await credentialAccepted(dep.workspaceId, resourceId, login.user))) {
    return `role ${login.user} is not a current credential of managed resource ${r.name} (rotated out or revoked); redeploy to receive the current one`;
  }
  return null;
}

/** The reason a bucket refuses new objects (over its size limit, as measured), or null. */
export async function overLimit(workspaceId: string, resourceId: string): Promise<string | null> {
  const r = await scopedDb(workspaceId).managedResource.findUnique({
    where: { id: resourceId },
    select: { failureCode: true, failureMessage: true },
  });
  return r?.failureCode === "size_limit_exceeded" ? (r.failureMessage ?? "the bucket is over its size limit") : null;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const problem = (status: number, detail: string) =>
  new Response(problemBody(status, detail), { status, headers: { "content-type": "application/problem+json" } });

/**
 * The object API of a bucket, served on its per-deployment socket:
 * PUT /<key> stores the body (Content-Type kept), GET /<key> returns it,
 * DELETE /<key> removes it, GET /?prefix=&after= lists keys (1000 at most).
 * Keys live in `storage_objects` with the resource id as owner; bytes are
 * content-addressed in the platform blob store.
 */
function bucketHandler(dep: TDep, resourceId: string) {
  return async (req: Request): Promise<Response> => {
    const why = await gate(dep, resourceId);
    if (why) return problem(403, why);
    const url = new URL(req.url);
    let key: string;
    try {
      key = decodeURIComponent(url.pathname.slice(1));
    } catch {
      return problem(400, "the key is not valid percent-encoding");
    }
    const objects = scopedDb(dep.workspaceId).storageObject;
    if (key === "") {
      if (req.method !== "GET") return problem(405, "only GET lists the bucket");
      const prefix = url.searchParams.get("prefix") ?? "";
      const after = url.searchParams.get("after") ?? undefined;
      const rows = await objects.findMany({
        where: { productId: resourceId, key: { startsWith: likeLiteral(prefix), ...(after ? { gt: after } : {}) } },
        orderBy: { key: "asc" },
        take: 1000,
      });
      return json(200, {
        items: rows.map((r) => ({
          key: r.key,
          size_bytes: Number(r.sizeBytes),
          content_type: r.contentType,
          updated_at: r.updatedAt.toISOString(),
        })),
      });
    }
    if (key.length > 1024) return problem(400, "keys are at most 1024 characters");
    switch (req.method) {
      case "PUT": {
        const over = await overLimit(dep.workspaceId, resourceId);
        if (over)
          return new Response(problemBody(409, over, { reason: "size_limit_exceeded" }), {
            status: 409,
            headers: { "content-type": "application/problem+json" },
          });
        const declared = Number(req.headers.get("content-length") ?? 0);
        if (declared > MAX_OBJECT_BYTES) return problem(413, `objects are at most ${MAX_OBJECT_BYTES} bytes`);
        const bytes = Buffer.from(await req.arrayBuffer());
        if (bytes.length > MAX_OBJECT_BYTES) return problem(413, `objects are at most ${MAX_OBJECT_BYTES} bytes`);
        const stored = await putObject(
          dep.workspaceId,
          resourceId,
          key,
          bytes,
          req.headers.get("content-type") ?? "application/octet-stream",
        );
        return json(200, { key, size_bytes: stored.sizeBytes, sha256: stored.sha256 });
      }
      case "GET": {
        const o = await getObject(dep.workspaceId, resourceId, key);
        if (!o) return problem(404, `no object ${key}`);
        return new Response(new Uint8Array(o.bytes), {
          status: 200,
          headers: { "content-type": o.contentType, "content-length": String(o.bytes.length) },
        });
      }
      case "DELETE":
        return (await deleteObject(dep.workspaceId, resourceId, key))
          ? new Response(null, { status: 204 })
          : problem(404, `no object ${key}`);
      default:
        return problem(405, "use GET, PUT or DELETE");
    }
  };
}

export function resourceHandlers(dep: TDep): TResourceHandlers {
  return {
    gate: (resourceId, login) => gate(dep, resourceId, login),
    bucket: (resourceId) => bucketHandler(dep, resourceId),
  };
}
