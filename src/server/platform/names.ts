import { Prisma } from "@/generated/prisma/client";
import { z } from "zod";
import type { TTx } from "./db/client";
import { AppError } from "./errors";

/**
 * Names of workspace resources (products, service identities, webhooks,
 * provider bindings): 1..100 characters, not blank, no control characters,
 * stored trimmed, unique per workspace case-insensitively. The database
 * enforces it (unique expression indexes on (workspace_id, lower(name)),
 * migration 20261126060000_resource_names); services check first so the
 * caller gets a 409 naming the holder, and map the lost race to the same 409.
 */
export const ZResourceName = z
  .string()
  .min(1)
  .max(100)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters")
  .refine((v) => v.trim().length > 0, "must not be blank")
  .describe("Unique in the workspace, case-insensitively; 1..100 characters, stored trimmed");

export const ZRenameRequest = z.strictObject({ name: ZResourceName }).meta({ id: "RenameRequest" });

export type TNamedTable = "products" | "service_identities" | "event_subscriptions" | "provider_bindings";

const LABEL: Record<TNamedTable, string> = {
  products: "product",
  service_identities: "service identity",
  event_subscriptions: "webhook endpoint",
  provider_bindings: "provider binding",
};

/** Rows that hold their name: revoked identities and bindings free it (partial indexes). */
const LIVE: Record<TNamedTable, Prisma.Sql> = {
  products: Prisma.empty,
  event_subscriptions: Prisma.empty,
  service_identities: Prisma.sql` AND status <> 'revoked'`,
  provider_bindings: Prisma.sql` AND status <> 'revoked'`,
};

export function nameTaken(table: TNamedTable, name: string, holderId?: string): AppError {
  const what = LABEL[table];
  return new AppError(
    "conflict",
    `A ${what} named "${name}" already exists in this workspace${holderId ? ` (${holderId})` : ""}; names are unique, ignoring case`,
    {
      reason: "name_taken",
      errors: [{ path: "/name", message: "is already used in this workspace", code: "name_taken" }],
      extensions: holderId ? { conflicting_id: holderId } : undefined,
    },
  );
}

/** The id of the live row of the workspace that holds this name (ignoring case), other than `exceptId`. */
export async function nameHolder(
  tx: TTx,
  table: TNamedTable,
  workspaceId: string,
  name: string,
  exceptId?: string,
): Promise<string | null> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM ${Prisma.raw(`"${table}"`)}
     WHERE workspace_id = ${workspaceId} AND lower(name) = lower(${name}) AND id <> ${exceptId ?? ""}${LIVE[table]}
     LIMIT 1`;
  return rows[0]?.id ?? null;
}

/** 409 name_taken when another live row of the workspace holds the name. */
export async function assertNameFree(
  tx: TTx,
  table: TNamedTable,
  workspaceId: string,
  name: string,
  exceptId?: string,
): Promise<void> {
  const holder = await nameHolder(tx, table, workspaceId, name, exceptId);
  if (holder) throw nameTaken(table, name, holder);
}

/**
 * A free name for a resource created without one: `base`, else `base-2`,
 * `base-3`, ... (Vercel's way with a second project from one repository).
 */
export async function freeName(tx: TTx, table: TNamedTable, workspaceId: string, rawBase: string): Promise<string> {
  const base = (rawBase.trim() || LABEL[table].replace(/ /g, "-")).slice(0, 90);
  const pattern = base.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`) + "-%";
  const rows = await tx.$queryRaw<{ name: string }[]>`
    SELECT lower(name) AS name FROM ${Prisma.raw(`"${table}"`)}
     WHERE workspace_id = ${workspaceId} AND (lower(name) = lower(${base}) OR lower(name) LIKE ${pattern})${LIVE[table]}`;
  const taken = new Set(rows.map((r) => r.name));
  if (!taken.has(base.toLowerCase())) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}

/**
 * True for a unique violation while writing a name: the race between the
 * check and the write (ids are random, so the name index is the one hit).
 */
export function isNameRace(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === "P2002";
}

/** The last segment of a repository URL without `.git`: `https://github.com/acme/shop.git` -> `shop`. */
export function repoBaseName(repoUrl: string): string {
  const trimmed = repoUrl.replace(/(\.git)?\/*$/, "");
  const last = trimmed.slice(Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf(":")) + 1);
  return last.slice(0, 60) || "product";
}
