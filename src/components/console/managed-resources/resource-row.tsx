"use client";

import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { Link2, Unlink } from "lucide-react";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { TableCell, TableRow } from "@/components/ui/table";
import type { AppRouter } from "@/server/trpc/root";
import { formatDateTime } from "../shared/format";
import { BackupsPanel } from "./backups-panel";
import { CredentialsPanel, RestartsProgress } from "./credentials-panel";
import { ReattachForm } from "./resource-forms";
import { SizeUsage } from "./size-usage";

export type TResource = inferRouterOutputs<AppRouter>["managedResources"]["list"]["items"][number];

const STATUS = {
  provisioning: { label: "Provisioning", tone: "info" },
  available: { label: "Available", tone: "success" },
  failed: { label: "Failed", tone: "danger" },
  deletion_scheduled: { label: "Deletion scheduled", tone: "warning" },
  deleting: { label: "Being destroyed", tone: "warning" },
  deleted: { label: "Deleted", tone: "neutral" },
} as const;

const KIND = { postgres: "PostgreSQL database", object_bucket: "Object bucket" } as const;

/** One resource: what it is, its status (and restarts), what it is attached to, and its actions. */
export function ResourceRow({
  ws,
  r,
  canWrite,
  isOwner,
  onDetach,
  onDelete,
}: {
  ws: string;
  r: TResource;
  canWrite: boolean;
  isOwner: boolean;
  onDetach: (r: TResource) => void;
  onDelete: (r: TResource) => void;
}) {
  const [attaching, setAttaching] = useState(false);
  const status = STATUS[r.status];
  const gone = r.status === "deleted" || r.status === "deleting";
  const previousEnds = r.credentials.find((c) => c.status === "retiring")?.expires_at ?? null;
  return (
    <TableRow className="align-top">
      <TableCell className="min-w-56">
        <div className="font-medium">{r.name}</div>
        <div className="text-xs text-slate-600">
          {KIND[r.kind]} · <code className="font-mono">{r.id}</code>
        </div>
        {r.connection?.database ? (
          <div className="text-xs text-slate-600">
            database <code className="font-mono">{r.connection.database}</code>
          </div>
        ) : null}
        <SizeUsage r={r} />
        {r.kind === "postgres" && r.status !== "deleted" ? (
          <details className="pt-1 text-sm">
            <summary className="cursor-pointer text-xs font-medium">
              Credentials<span className="sr-only"> of {r.name}</span>
              {previousEnds ? (
                <span className="font-normal text-amber-900">
                  {" "}
                  (previous password works until {formatDateTime(previousEnds)})
                </span>
              ) : null}
            </summary>
            <CredentialsPanel ws={ws} r={r} canWrite={canWrite} />
          </details>
        ) : null}
        {r.kind === "postgres" ? (
          <details className="pt-1 text-sm">
            <summary className="cursor-pointer text-xs font-medium">
              Backups<span className="sr-only"> of {r.name}</span>
            </summary>
            <BackupsPanel ws={ws} resource={r} canWrite={canWrite} isOwner={isOwner} />
          </details>
        ) : null}
      </TableCell>
      <TableCell className="min-w-48">
        <Badge tone={status.tone}>{status.label}</Badge>
        {r.failure ? <p className="pt-2 text-sm text-rose-800">{r.failure.message}</p> : null}
        <RestartsProgress ws={ws} r={r} />
        {r.deletion ? (
          <p className="pt-2 text-sm text-amber-900">
            Destroyed after {formatDateTime(r.deletion.destroy_after)}. Attach it again before then to restore it.
          </p>
        ) : null}
      </TableCell>
      <TableCell className="min-w-64">
        {r.attachment ? (
          <div className="text-sm">
            <code className="font-mono">{r.attachment.env_var}</code> of{" "}
            <Link className="underline" href={`/console/w/${ws}/products/${r.attachment.product_id}`}>
              {r.attachment.product_id}
            </Link>
            {r.attachment.environment_type ? ` (${r.attachment.environment_type} only)` : " (all environments)"}
          </div>
        ) : (
          <div className="text-sm text-slate-600">Not attached</div>
        )}
        {r.used_by.length ? (
          <ul className="pt-1 text-xs text-slate-700">
            {r.used_by.map((u) => (
              <li key={u.deployment_id}>
                Used by{" "}
                <Link className="underline" href={`/console/w/${ws}/deployments/${u.deployment_id}`}>
                  {u.deployment_id}
                </Link>{" "}
                ({u.environment_type})
              </li>
            ))}
          </ul>
        ) : null}
        {attaching ? <ReattachForm ws={ws} r={r} onDone={() => setAttaching(false)} /> : null}
      </TableCell>
      <TableCell className="text-right whitespace-nowrap">
        {canWrite && !gone ? (
          <div className="flex flex-col items-end gap-2">
            {r.attachment ? (
              <Button size="sm" variant="secondary" onClick={() => onDetach(r)}>
                <Unlink aria-hidden="true" />
                Detach<span className="sr-only"> {r.name}</span>
              </Button>
            ) : !attaching ? (
              <Button size="sm" variant="secondary" onClick={() => setAttaching(true)}>
                <Link2 aria-hidden="true" />
                {r.status === "deletion_scheduled" ? "Restore" : "Attach"}
                <span className="sr-only"> {r.name}</span>
              </Button>
            ) : null}
            {r.status !== "deletion_scheduled" ? (
              <Button
                size="sm"
                variant="danger"
                disabled={Boolean(r.attachment)}
                title={r.attachment ? "Detach it first: an attached resource cannot be deleted" : undefined}
                onClick={() => onDelete(r)}
              >
                Delete<span className="sr-only"> {r.name}</span>
              </Button>
            ) : null}
          </div>
        ) : null}
      </TableCell>
    </TableRow>
  );
}
