import { Prisma } from "@/generated/prisma/client";
import { db, type TDb } from "./client";

/**
 * The workspace-scoped data layer (issue #15 item 6; docs/decisions.md
 * "One tenant-scoped data layer"). `scopedDb(ws)` is the Prisma client with a
 * query extension that confines every model operation to workspace `ws`:
 *
 * - reads, updates, deletes, counts, aggregates and groupBys get the workspace
 *   ANDed into their `where` (a row of another workspace is simply not there:
 *   findUnique gives null, update/delete throw P2025 "not found");
 * - creates and upserts get `workspaceId: ws` filled in, and a create, update
 *   or upsert whose data names another workspace is refused (TenancyViolation);
 * - models without a workspace_id column that hang off a workspace's row
 *   (CHILD_SCOPES) are filtered through that parent, and are created only
 *   under a parent of the workspace (the foreign key becomes a `connect` whose
 *   `where` carries the workspace, checked by the same statement);
 * - platform-global models (PLATFORM_GLOBAL) and unknown operations are refused
 *   outright: a service that needs them uses `db()` and says why.
 *
 * Interactive transactions of the scoped client are scoped too (the extension
 * applies to `tx`). Raw SQL ($queryRaw, rawQuery) is not: services writing SQL
 * keep their own `workspace_id = $n`.
 */

/** Models without workspace_id that belong to a workspace through a parent row: the relation, its foreign key, and any other foreign keys. */
export const CHILD_SCOPES = {
  webhookAttempt: { relation: "delivery", fk: "deliveryId", refs: {} },
  budgetReservation: { relation: "budget", fk: "budgetId", refs: { bindingId: "binding" } },
  managedResourceUse: { relation: "deployment", fk: "deploymentId", refs: { resourceId: "resource" } },
} as const satisfies Record<string, { relation: string; fk: string; refs: Record<string, string> }>;

/** Models that belong to no workspace, each with the reason. The scoped client refuses them. */
export const PLATFORM_GLOBAL = {
  user: "a person, member of any number of workspaces",
  apiToken: "a user's personal token, looked up by its id (jti) before any workspace is known",
  signingKey: "the platform's JWT signing keys",
  idempotencyKey: "keyed by principal (user or service identity), replayed before the workspace is resolved",
  rateCardVersion: "the platform's price list",
  subscriptionTier: "the platform's tier catalogue",
  paymentEvent:
    "a payment gateway's event log, deduplicated by (gateway, event id) before the order's workspace is known",
  runnerHost: "a host that runs hosted apps for every workspace (placement, leases)",
  invoiceNumberSequence: "an issuer's invoice numbers, shared by every workspace it bills",
  tierDunningPolicy: "the platform's dunning policy per tier (the tier catalogue's companion)",
} as const;

/** The model whose row IS the workspace: scoped by its id. */
const WORKSPACE_MODEL = "workspace";

export class TenancyViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TenancyViolation";
  }
}

type TArgs = Record<string, unknown> & {
  where?: Record<string, unknown>;
  data?: unknown;
  create?: unknown;
  update?: unknown;
};

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/** Prisma's model names (camelCase, as on the client) whose rows carry a workspaceId column. */
function ownedModels(): Set<string> {
  const owned = new Set<string>();
  for (const name of Object.values(Prisma.ModelName)) {
    if (scalarFieldsOf(name).includes("workspaceId")) owned.add(lowerFirst(name));
  }
  return owned;
}

/** A model's scalar columns, from the generated `Prisma.<Model>ScalarFieldEnum` (public, generated per model). */
export function scalarFieldsOf(modelName: string): string[] {
  const fields = (Prisma as unknown as Record<string, Record<string, string> | undefined>)[
    `${modelName}ScalarFieldEnum`
  ];
  if (!fields) throw new Error(`the generated client has no ${modelName}ScalarFieldEnum`);
  return Object.values(fields);
}

let owned: Set<string> | undefined;
/** Every model name (camelCase) that has a workspaceId column: scoped automatically. */
export function workspaceOwnedModels(): ReadonlySet<string> {
  return (owned ??= ownedModels());
}

/** How the scoped client treats a model: "owned" (workspaceId), "child", "workspace", or "global". */
export function scopeKind(model: string): "owned" | "child" | "workspace" | "global" | "unclassified" {
  const m = lowerFirst(model);
  if (m === WORKSPACE_MODEL) return "workspace";
  if (workspaceOwnedModels().has(m)) return "owned";
  if (m in CHILD_SCOPES) return "child";
  if (m in PLATFORM_GLOBAL) return "global";
  return "unclassified";
}

const READ_OPS = new Set([
  "findUnique",
  "findUniqueOrThrow",
  "findFirst",
  "findFirstOrThrow",
  "findMany",
  "count",
  "aggregate",
  "groupBy",
]);
const WHERE_WRITE_OPS = new Set(["update", "updateMany", "updateManyAndReturn", "delete", "deleteMany"]);
const CREATE_OPS = new Set(["create", "createMany", "createManyAndReturn"]);

function filterFor(model: string, ws: string): Record<string, unknown> {
  const kind = scopeKind(model);
  if (kind === "workspace") return { id: ws };
  if (kind === "owned") return { workspaceId: ws };
  const child = CHILD_SCOPES[lowerFirst(model) as keyof typeof CHILD_SCOPES];
  return { [child.relation]: { is: { workspaceId: ws } } };
}

function scopeWhere(model: string, ws: string, where: Record<string, unknown> | undefined): Record<string, unknown> {
  const and: unknown[] = where?.AND === undefined ? [] : Array.isArray(where.AND) ? where.AND : [where.AND];
  return { ...where, AND: [...and, filterFor(model, ws)] };
}

/** A row's data for the workspace: fills workspaceId, refuses another one. */
function ownedData(model: string, ws: string, data: unknown, op: string, fill: boolean): unknown {
  if (!data || typeof data !== "object") return data;
  const d = { ...(data as Record<string, unknown>) };
  const named = d.workspaceId;
  if (named !== undefined && named !== ws)
    throw new TenancyViolation(
      `${model}.${op}: data names workspace ${JSON.stringify(named)}, the client is scoped to ${ws}`,
    );
  const connect = (d.workspace as { connect?: { id?: unknown } } | undefined)?.connect;
  if (d.workspace !== undefined && connect?.id !== ws)
    throw new TenancyViolation(`${model}.${op}: data connects another workspace than ${ws}`);
  if (fill && named === undefined && d.workspace === undefined) d.workspaceId = ws;
  return d;
}

/** A child row is created under a parent of the workspace: its foreign keys become connects checked in the same statement. */
function childCreateData(model: string, ws: string, data: unknown): unknown {
  const child = CHILD_SCOPES[lowerFirst(model) as keyof typeof CHILD_SCOPES];
  const d = { ...(data as Record<string, unknown>) };
  const parentId = d[child.fk];
  if (typeof parentId !== "string")
    throw new TenancyViolation(`${model}.create: ${child.fk} is required for a scoped create`);
  delete d[child.fk];
  d[child.relation] = { connect: { id: parentId, workspaceId: ws } };
  for (const [fk, relation] of Object.entries(child.refs as Record<string, string>)) {
    const v = d[fk];
    delete d[fk];
    if (typeof v === "string") d[relation] = { connect: { id: v, workspaceId: ws } };
  }
  return d;
}

function scopeArgs(model: string, operation: string, args: TArgs, ws: string): TArgs {
  const kind = scopeKind(model);
  if (kind === "global" || kind === "unclassified") {
    throw new TenancyViolation(`${model} is not a workspace's model (${kind}); use db() in a platform service`);
  }
  if (READ_OPS.has(operation)) return { ...args, where: scopeWhere(model, ws, args.where) };
  if (WHERE_WRITE_OPS.has(operation)) {
    const data = kind === "owned" ? ownedData(model, ws, args.data, operation, false) : args.data;
    if (kind === "workspace" && (args.data as Record<string, unknown> | undefined)?.id !== undefined)
      throw new TenancyViolation("workspace.update: the id is not changed");
    return { ...args, where: scopeWhere(model, ws, args.where), ...(args.data !== undefined ? { data } : {}) };
  }
  if (CREATE_OPS.has(operation)) {
    if (kind === "workspace")
      throw new TenancyViolation("workspaces are created by the platform (db()), not inside one");
    if (kind === "child") {
      if (operation !== "create")
        throw new TenancyViolation(`${model}.${operation}: create child rows one by one through the scoped client`);
      return { ...args, data: childCreateData(model, ws, args.data) };
    }
    const data = Array.isArray(args.data)
      ? args.data.map((d) => ownedData(model, ws, d, operation, true))
      : ownedData(model, ws, args.data, operation, true);
    return { ...args, data };
  }
  if (operation === "upsert") {
    if (kind !== "owned") throw new TenancyViolation(`${model}.upsert is not supported by the scoped client`);
    return {
      ...args,
      where: scopeWhere(model, ws, args.where),
      create: ownedData(model, ws, args.create, operation, true),
      update: ownedData(model, ws, args.update, operation, false),
    };
  }
  throw new TenancyViolation(`${model}.${operation} is not supported by the scoped client`);
}

function extend(base: TDb, ws: string): TDb {
  const scoped = base.$extends({
    name: `workspace:${ws}`,
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          return query(scopeArgs(model, operation, args ?? {}, ws));
        },
      },
    },
  });
  // A query extension changes no types: the scoped client has the base client's API.
  return scoped as unknown as TDb;
}

const MAX_CACHED = 512;
const cache = new WeakMap<TDb, Map<string, TDb>>();

/**
 * The data access of one workspace. Cached per process (a bounded map, most
 * recently used last), so a request costs a map lookup, not a new extension.
 */
export function scopedDb(workspaceId: string): TDb {
  if (!workspaceId) throw new TenancyViolation("scopedDb needs a workspace id");
  const base = db();
  let byWs = cache.get(base);
  if (!byWs) cache.set(base, (byWs = new Map<string, TDb>()));
  let client = byWs.get(workspaceId);
  if (client) {
    byWs.delete(workspaceId);
  } else {
    client = extend(base, workspaceId);
    if (byWs.size >= MAX_CACHED) byWs.delete(byWs.keys().next().value!);
  }
  byWs.set(workspaceId, client);
  return client;
}
