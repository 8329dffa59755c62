import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";
import { zListQuery, zPage } from "@/server/platform/pagination";
import { BACKUP_STATES, RESTORE_STATES } from "./backups.states";

/** Backups and restores of postgres resources (issue #33 item 4; docs/decisions.md "Backups and restore"). */
export const ZBackup = z
  .object({
    id: zId("bak"),
    workspace_id: zWorkspaceId,
    resource_id: zId("mres"),
    /** scheduled (daily), on_demand (POST …/backups) or pre_destroy (taken before the data is destroyed). */
    trigger: z.enum(["scheduled", "on_demand", "pre_destroy"]),
    status: z.enum(BACKUP_STATES),
    /** Bytes stored (pg_dump custom format, compressed, then encrypted with the workspace's key). */
    size_bytes: z.number().int().min(0),
    failure: z.object({ message: z.string() }).nullable(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    /** When the backup is deleted (retention per plan). */
    expires_at: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "ManagedResourceBackup" });
export type TBackup = z.infer<typeof ZBackup>;

export const ZBackupList = zPage(ZBackup).meta({ id: "ManagedResourceBackups" });

export const ZRestore = z
  .object({
    id: zId("rst"),
    workspace_id: zWorkspaceId,
    backup_id: zId("bak"),
    source_resource_id: zId("mres"),
    /** The resource the data goes into: a new one (fork) or the backup's own (in_place). */
    target_resource_id: zId("mres"),
    mode: z.enum(["fork", "in_place"]),
    status: z.enum(RESTORE_STATES),
    failure: z.object({ message: z.string() }).nullable(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "ManagedResourceRestore" });
export type TRestore = z.infer<typeof ZRestore>;

export const ZRestoreRequest = z
  .strictObject({
    /** fork: into a new, detached resource (admin); in_place: over the backup's own resource (owner, with `confirm`). */
    mode: z.enum(["fork", "in_place"]),
    /** fork: the new resource's name (default: the source's name + "-restored-" + a short suffix). */
    name: z
      .string()
      .regex(
        /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
        "must be 1..63 lower-case letters, digits and hyphens, not starting or ending with a hyphen",
      )
      .optional(),
    /** in_place: the resource's name, typed again: everything written since the backup is replaced. */
    confirm: z.string().max(63).optional(),
  })
  .meta({ id: "ManagedResourceRestoreRequest" });

export const ZBackupPath = z.object({ ws: zWorkspaceId, mres: zId("mres"), bak: zId("bak") });
export const ZBackupListQuery = zListQuery.extend({ ws: zWorkspaceId, mres: zId("mres") });
