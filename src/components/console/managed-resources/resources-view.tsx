"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { SectionCard } from "../shared/section-card";
import { Table, TableBody, TableCaption, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { useTRPC, wsOnly } from "@/lib/trpc/client";
import { useState } from "react";
import { ConfirmDialog } from "../shared/confirm-dialog";
import { formatBytes } from "../shared/format";
import { LoadMore } from "../shared/load-more";
import { hasRole } from "../shell/nav-config";
import { PageHeader } from "../shared/page-header";
import { QueryStates } from "../shared/query-states";
import { CreateResourceForm } from "./resource-forms";
import { ResourceRow, type TResource } from "./resource-row";
import { SizeLimitBanner } from "./size-usage";

/** The worker is about to change it: provisioning, being destroyed, restarting the app's deployments, dropping a role, or a deletion that is (nearly) due. */
const busy = (r: TResource) =>
  r.status === "provisioning" ||
  r.status === "deleting" ||
  r.restarts !== null ||
  r.credentials.some((c) => c.status === "revoking") ||
  (r.status === "deletion_scheduled" &&
    r.deletion !== null &&
    Date.parse(r.deletion.destroy_after) <= Date.now() + 60_000);

/** What deleting destroys, in words, for the confirmation. */
function whatIsLost(r: TResource): string {
  return r.kind === "postgres"
    ? `the database ${r.connection?.database ?? r.name}, every table and row in it, and its login role`
    : `the bucket ${r.name} and every object in it (${formatBytes(r.size_bytes)} at the last measurement)`;
}
/** Managed resources: create, attach, status, size, which deployments use each; detach, reattach/restore and delete with confirmations naming what is lost. */
export function ResourcesView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const canWrite = hasRole(workspace.data?.role, "admin");
  const isOwner = hasRole(workspace.data?.role, "owner");
  const list = useInfiniteQuery(
    trpc.managedResources.list.infiniteQueryOptions(
      { ws, limit: 50, order: "desc" },
      {
        getNextPageParam: (p) => p.next_cursor ?? undefined,
        // The worker provisions and destroys within seconds: keep the page current meanwhile.
        refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some(busy)) ? 2_000 : false),
      },
    ),
  );
  const [detach, setDetach] = useState<TResource | null>(null);
  const [remove, setRemove] = useState<TResource | null>(null);
  const [skipGrace, setSkipGrace] = useState(false);
  const invalidate = () => queryClient.invalidateQueries(trpc.managedResources.pathFilter());
  const detachMut = useMutation(
    trpc.managedResources.detach.mutationOptions({
      onSuccess: async () => {
        setDetach(null);
        await invalidate();
      },
    }),
  );
  const deleteMut = useMutation(
    trpc.managedResources.delete.mutationOptions({
      onSuccess: async () => {
        setRemove(null);
        await invalidate();
      },
    }),
  );
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageHeader
        title="Resources"
        description="Databases and buckets Capstan manages for your products, attached, detached and reattached without losing data."
      />
      <div className="space-y-6">
        <SizeLimitBanner rows={rows} />
        {canWrite ? <CreateResourceForm ws={ws} /> : null}
        <SectionCard title="Resources" flush>
          <QueryStates query={list} what="resources" empty={rows.length === 0} emptyText="No managed resources yet." />
          {rows.length > 0 ? (
            <Table>
              <TableCaption>Managed resources of this workspace</TableCaption>
              <TableHeader>
                <TableRow>
                  <TableHead>Resource</TableHead>
                  <TableHead>Status</TableHead>
                  <TableHead>Attached to</TableHead>
                  <TableHead>
                    <span className="sr-only">Actions</span>
                  </TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {rows.map((r) => (
                  <ResourceRow
                    key={r.id}
                    ws={ws}
                    r={r}
                    canWrite={canWrite}
                    isOwner={isOwner}
                    onDetach={(x) => {
                      detachMut.reset();
                      setDetach(x);
                    }}
                    onDelete={(x) => {
                      deleteMut.reset();
                      setSkipGrace(false);
                      setRemove(x);
                    }}
                  />
                ))}
              </TableBody>
            </Table>
          ) : null}
          <LoadMore query={list} label="Load more resources" />
        </SectionCard>
      </div>
      <ConfirmDialog
        open={detach !== null}
        onClose={() => setDetach(null)}
        title={`Detach ${detach?.name ?? ""}?`}
        description={`New deployments of ${detach?.attachment?.product_id ?? ""} will not receive ${detach?.attachment?.env_var ?? ""}, and running ones${detach?.used_by.length ? ` (${detach.used_by.map((u) => u.deployment_id).join(", ")})` : ""} lose new connections to it at once. The data is kept: attach it again at any time.`}
        confirmLabel="Detach"
        pendingLabel="Detaching…"
        pending={detachMut.isPending}
        error={detachMut.error}
        onConfirm={() => detach && detachMut.mutate({ ws, mres: detach.id })}
      />
      <ConfirmDialog
        open={remove !== null}
        onClose={() => setRemove(null)}
        title={`Delete ${remove?.name ?? ""}?`}
        description={
          remove
            ? `This destroys ${whatIsLost(remove)}. ${skipGrace ? "It happens within seconds and cannot be undone." : "It happens after the grace period; until then, attaching it again restores it."}`
            : ""
        }
        confirmLabel={skipGrace ? "Destroy now" : "Schedule deletion"}
        pendingLabel="Deleting…"
        pending={deleteMut.isPending}
        error={deleteMut.error}
        onConfirm={() =>
          remove &&
          deleteMut.mutate({ ws, mres: remove.id, ...(skipGrace ? { skip_grace_period: "true" as const } : {}) })
        }
      >
        {isOwner ? (
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={skipGrace} onChange={(e) => setSkipGrace(e.target.checked)} />
            Skip the grace period (owners only): destroy at once, with no way back
          </label>
        ) : null}
      </ConfirmDialog>
    </>
  );
}
