"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { AppRouter } from "@/server/trpc/root";
import { ConfirmDialog } from "../shared/confirm-dialog";
import { formatBytes } from "../shared/format";
import { RelativeTime } from "../shared/relative-time";

type TBackup = inferRouterOutputs<AppRouter>["managedResources"]["backups"]["list"]["items"][number];

const STATUS = {
  pending: { label: "Queued", tone: "info" },
  running: { label: "Running", tone: "info" },
  completed: { label: "Completed", tone: "success" },
  failed: { label: "Failed", tone: "danger" },
  expired: { label: "Expired", tone: "neutral" },
} as const;
const TRIGGER = { scheduled: "Daily", on_demand: "On demand", pre_destroy: "Before destruction" } as const;

/**
 * A postgres resource's backups (size, age, status) with "Back up now" and a
 * Restore button: into a new resource (admins), or over this one (owners,
 * typing the resource's name) — docs/decisions.md "Managed data: backups and restore".
 */
export function BackupsPanel({
  ws,
  resource,
  canWrite,
  isOwner,
}: {
  ws: string;
  resource: { id: string; name: string; status: string };
  canWrite: boolean;
  isOwner: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(
    trpc.managedResources.backups.list.queryOptions(
      { ws, mres: resource.id, limit: 20, order: "desc" },
      {
        refetchInterval: (q) =>
          q.state.data?.items.some((b) => b.status === "pending" || b.status === "running") ? 2_000 : false,
      },
    ),
  );
  const invalidate = () => queryClient.invalidateQueries(trpc.managedResources.pathFilter());
  const backupNow = useMutation(trpc.managedResources.backups.create.mutationOptions({ onSuccess: invalidate }));
  const [restoring, setRestoring] = useState<TBackup | null>(null);
  const [mode, setMode] = useState<"fork" | "in_place">("fork");
  const [confirm, setConfirm] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const restore = useMutation(
    trpc.managedResources.backups.restore.mutationOptions({
      onSuccess: async (r) => {
        setRestoring(null);
        setDone(
          r.mode === "fork"
            ? `Restoring into a new resource (${r.target_resource_id}); it appears in the list once filled.`
            : `Restoring over ${resource.name}: its data is replaced within a minute.`,
        );
        await invalidate();
      },
    }),
  );
  const items = list.data?.items ?? [];
  const backupProblem = backupNow.error ? problemOf(backupNow.error) : null;
  return (
    <div className="space-y-2 pt-2">
      {list.isError ? <Alert tone="danger">Backups could not be loaded.</Alert> : null}
      {items.length === 0 && list.isSuccess ? (
        <p className="text-xs text-slate-600">
          No backups yet: one is taken daily, and before the database is ever destroyed.
        </p>
      ) : null}
      {items.length > 0 ? (
        <ul className="space-y-1" aria-label={`Backups of ${resource.name}`}>
          {items.map((b) => (
            <li key={b.id} className="flex flex-wrap items-center gap-2 text-xs">
              <Badge tone={STATUS[b.status].tone}>{STATUS[b.status].label}</Badge>
              <span>{TRIGGER[b.trigger]}</span>
              <span>{b.status === "completed" ? formatBytes(b.size_bytes) : "—"}</span>
              <RelativeTime iso={b.completed_at ?? b.created_at} className="text-slate-600" />
              {b.failure ? <span className="text-rose-800">{b.failure.message}</span> : null}
              {canWrite && b.status === "completed" ? (
                <Button
                  size="sm"
                  variant="secondary"
                  onClick={() => {
                    restore.reset();
                    setMode("fork");
                    setConfirm("");
                    setRestoring(b);
                  }}
                >
                  Restore<span className="sr-only"> backup {b.id}</span>
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {canWrite && resource.status === "available" ? (
        <Button
          size="sm"
          variant="secondary"
          disabled={backupNow.isPending}
          onClick={() => backupNow.mutate({ ws, mres: resource.id })}
        >
          {backupNow.isPending ? "Queuing…" : "Back up now"}
        </Button>
      ) : null}
      {backupProblem ? <Alert tone="danger">{backupProblem.detail}</Alert> : null}
      {done ? (
        <p role="status" className="text-xs text-emerald-800">
          {done}
        </p>
      ) : null}
      <ConfirmDialog
        open={restoring !== null}
        onClose={() => setRestoring(null)}
        title={`Restore the backup of ${resource.name}?`}
        description={
          restoring
            ? `Backup of ${restoring.completed_at ?? restoring.created_at} (${formatBytes(restoring.size_bytes)}).`
            : ""
        }
        confirmLabel={mode === "fork" ? "Restore into a new resource" : "Replace the data"}
        pendingLabel="Restoring…"
        pending={restore.isPending}
        disabled={restore.isPending || (mode === "in_place" && confirm !== resource.name)}
        variant={mode === "in_place" ? "danger" : "primary"}
        error={restore.error}
        onConfirm={() =>
          restoring &&
          restore.mutate({
            ws,
            mres: resource.id,
            bak: restoring.id,
            mode,
            ...(mode === "in_place" ? { confirm } : {}),
          })
        }
      >
        <fieldset className="space-y-2 text-sm">
          <legend className="sr-only">Where to restore</legend>
          <label className="flex items-center gap-2">
            <input type="radio" name="restore-mode" checked={mode === "fork"} onChange={() => setMode("fork")} />
            Into a new resource (this one is not touched)
          </label>
          {isOwner ? (
            <label className="flex items-center gap-2">
              <input
                type="radio"
                name="restore-mode"
                checked={mode === "in_place"}
                onChange={() => setMode("in_place")}
              />
              Over {resource.name}: everything written since the backup is lost (owners only)
            </label>
          ) : null}
          {mode === "in_place" ? (
            <div className="space-y-1">
              <Label htmlFor={`confirm-${resource.id}`}>Type {resource.name} to confirm</Label>
              <Input
                id={`confirm-${resource.id}`}
                value={confirm}
                onChange={(e) => setConfirm(e.target.value)}
                autoComplete="off"
              />
            </div>
          ) : null}
        </fieldset>
      </ConfirmDialog>
    </div>
  );
}
