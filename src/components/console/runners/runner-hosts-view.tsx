"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useTRPC } from "@/lib/trpc/client";
import type { AppRouter } from "@/server/trpc/root";
import { ConfirmAction } from "../shared/confirm-action";
import { formatDateTime } from "../shared/format";
import { PageHeader } from "../shared/page-header";
import { actionsColumn, type TColumn } from "../shared/resource-table";
import { StatusChip } from "../shared/status-chip";
import { TableCard } from "../shared/table-card";

type THost = inferRouterOutputs<AppRouter>["runnerHosts"]["list"]["items"][number];

const TONES = { live: "success", cordoned: "warning", draining: "info", drained: "neutral", lost: "danger" } as const;

/** Where the host stands, in words, under its state. */
function stateNote(h: THost): string | undefined {
  if (h.state === "draining" && h.drain) return `${h.drain.message} (${h.drain.remaining} left)`;
  if (h.state === "draining") return h.draining_at ? `Draining since ${formatDateTime(h.draining_at)}` : undefined;
  if (h.state === "drained")
    return h.drained_at ? `Drained ${formatDateTime(h.drained_at)}: no deployment left` : "No deployment left";
  if (h.state === "cordoned" && h.cordoned_at) return `Cordoned ${formatDateTime(h.cordoned_at)}`;
  return undefined;
}

function HostActions({ h, onChanged }: { h: THost; onChanged: () => unknown }) {
  const trpc = useTRPC();
  if (h.state === "lost") return null;
  const cordoned = h.state !== "live";
  return (
    <>
      <ConfirmAction
        mutation={cordoned ? trpc.runnerHosts.uncordon.mutationOptions() : trpc.runnerHosts.cordon.mutationOptions()}
        variables={{ host: h.id }}
        onDone={onChanged}
        label={cordoned ? "Uncordon" : "Cordon"}
        srLabel={h.name}
        variant="secondary"
        title={`${cordoned ? "Uncordon" : "Cordon"} ${h.name}?`}
        description={
          !cordoned
            ? "Its apps keep running; no new deployment is placed on it."
            : h.state === "draining"
              ? "It takes new deployments again; the deployments already replaced elsewhere stay where they are."
              : "It takes new deployments again."
        }
        confirmLabel={cordoned ? "Uncordon" : "Cordon"}
        pendingLabel={cordoned ? "Uncordoning…" : "Cordoning…"}
        confirmVariant="primary"
      />
      {h.state === "live" || h.state === "cordoned" ? (
        <ConfirmAction
          mutation={trpc.runnerHosts.drain.mutationOptions()}
          variables={{ host: h.id }}
          onDone={onChanged}
          label="Drain"
          srLabel={h.name}
          title={`Drain ${h.name}?`}
          description={`It is cordoned, and its ${h.load} deployment(s) are replaced on other hosts one by one, each new one active before the old one stops: the apps keep answering. A deployment with nowhere to go waits, and the page says so.`}
          confirmLabel="Drain"
          pendingLabel="Starting the drain…"
          confirmVariant="danger"
        />
      ) : null}
    </>
  );
}

/** Runner hosts with their load, cordon and drain (platform owners and admins; GET /v1/platform/runner-hosts). */
export function RunnerHostsView() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(
    trpc.runnerHosts.list.queryOptions(
      {},
      { refetchInterval: (q) => (q.state.data?.items.some((h) => h.state === "draining") ? 2_000 : 5_000) },
    ),
  );
  const onChanged = () => qc.invalidateQueries({ queryKey: trpc.runnerHosts.list.queryKey() });
  const columns: TColumn<THost>[] = [
    {
      key: "host",
      label: "Host",
      cell: (h) => (
        <div>
          <div className="font-mono text-xs">{h.name}</div>
          <div className="text-xs text-muted-foreground">{h.endpoint}</div>
        </div>
      ),
    },
    {
      key: "state",
      label: "State",
      className: "max-w-72",
      cell: (h) => <StatusChip status={h.state} tones={TONES} busy={h.state === "draining"} note={stateNote(h)} />,
    },
    { key: "load", label: "Load", cell: (h) => `${h.load} / ${h.capacity}` },
    { key: "sandbox", label: "Sandbox", priority: 2, cell: (h) => h.sandbox ?? "—" },
    { key: "heartbeat", label: "Last heartbeat", priority: 2, cell: (h) => formatDateTime(h.last_heartbeat_at) },
    actionsColumn((h) => <HostActions h={h} onChanged={onChanged} />),
  ];
  return (
    <>
      <PageHeader
        title="Runner hosts"
        description="The hosts that run hosted apps. A cordoned host keeps its apps but takes no new deployment; a drained one has handed them to other hosts. Platform owners and admins only."
      />
      <TableCard
        title="Hosts"
        description="Load counts deployments applying or active on the host. A host whose lease lapses is lost, and its apps are placed again on a live host."
        query={list}
        what="runner hosts"
        emptyText="No runner host has registered yet."
        caption="Runner hosts by name"
        columns={columns}
      />
    </>
  );
}
