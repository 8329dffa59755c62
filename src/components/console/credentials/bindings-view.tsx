"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import type { TBindingStatus } from "@/server/domain/credentials/bindings.contract";
import type { TCapabilityId } from "@/server/domain/source/contract-rules";
import type { AppRouter } from "@/server/trpc/root";
import { CreateBindingForm } from "./binding-form";
import { BudgetBar } from "../usage/budget-bar";
import { CAPABILITY_IDS } from "./credentials-view";
import { AdminOnly } from "../shared/admin-only";
import { ConfirmAction } from "../shared/confirm-action";
import { ChipList } from "../shared/label-value";
import { PageHeader } from "../shared/page-header";
import { RelativeTime } from "../shared/relative-time";
import { RenameButton } from "../shared/rename-dialog";
import { actionsColumn, ShortId, type TColumn } from "../shared/resource-table";
import { StatusChip, type TTone } from "../shared/status-chip";
import { TableCard } from "../shared/table-card";
import { BindingTestButton, TESTABLE_CAPABILITIES } from "../shared/test-buttons";
import { OptionSelect } from "../shared/option-select";

type TBinding = inferRouterOutputs<AppRouter>["bindings"]["list"]["items"][number];

const STATUSES: TBindingStatus[] = ["requested", "ready", "failed", "revoked", "expired"];
const STATUS_TONE: Record<TBindingStatus, TTone> = {
  requested: "info",
  ready: "success",
  failed: "danger",
  revoked: "neutral",
  expired: "warning",
};

function BindingsTable({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [capability, setCapability] = useState<TCapabilityId | "">("");
  const [status, setStatus] = useState<TBindingStatus | "">("");
  const list = useInfiniteQuery(
    trpc.bindings.list.infiniteQueryOptions(
      { ws, limit: 50, order: "desc", ...(capability ? { capability } : {}), ...(status ? { status } : {}) },
      { getNextPageParam: (p) => p.next_cursor ?? undefined },
    ),
  );
  const invalidate = () => queryClient.invalidateQueries(trpc.bindings.pathFilter());
  const rename = useMutation(trpc.bindings.rename.mutationOptions({ onSuccess: () => invalidate() }));

  const columns: TColumn<TBinding>[] = [
    {
      key: "binding",
      label: "Binding",
      rowHeader: true,
      cell: (b) => (
        <div className="text-xs font-normal">
          <div className="text-sm font-medium break-words">{b.name}</div>
          <div>
            <code className="font-mono">{b.capability}</code> · {b.provider}
          </div>
          <ShortId id={b.id} />
          <div className="text-slate-600">
            credential <ShortId id={b.credential_id} />
          </div>
          {b.capability === "ai.generate" ? (
            <div className="text-slate-600">
              {b.provider_config?.api_style === "anthropic" ? "Anthropic Messages" : "OpenAI-compatible"} API
            </div>
          ) : null}
        </div>
      ),
    },
    {
      key: "status",
      label: "Status",
      cell: (b) => <StatusChip status={b.status} tones={STATUS_TONE} note={b.failure_reason?.replaceAll("_", " ")} />,
    },
    {
      key: "actions-allowed",
      label: "Actions",
      priority: 3,
      cell: (b) => <ChipList items={b.actions} label="Actions" className="max-w-48" />,
    },
    {
      key: "budget",
      label: "Budget",
      priority: 2,
      className: "min-w-48",
      cell: (b) => (
        <BudgetBar
          label={`Binding ${b.id}`}
          used={b.budget.used_units}
          reserved={b.budget.reserved_units}
          limit={b.budget.units}
        />
      ),
    },
    { key: "last-used", label: "Last used", priority: 3, cell: (b) => <RelativeTime iso={b.last_activity_at} /> },
    actionsColumn(
      (b) => (
        <>
          <RenameButton
            what="binding"
            current={b.name}
            mutation={{ ...rename, mutate: (name, opts) => rename.mutate({ ws, bind: b.id, name }, opts) }}
          />
          {b.status === "revoked" || b.status === "expired" || !TESTABLE_CAPABILITIES.includes(b.capability) ? null : (
            <BindingTestButton ws={ws} bind={b.id} label={b.name} capability={b.capability} />
          )}
          {b.status === "revoked" ? null : (
            <ConfirmAction
              mutation={trpc.bindings.delete.mutationOptions()}
              variables={{ ws, bind: b.id }}
              onDone={invalidate}
              label="Revoke"
              srLabel={`binding ${b.name}`}
              title="Revoke this binding?"
              description={`Apps of this workspace can no longer use ${b.capability} through ${b.provider} with this binding (the Bridge answers binding_revoked). The credential itself stays.`}
              confirmLabel="Revoke binding"
              pendingLabel="Revoking…"
            />
          )}
        </>
      ),
      "Rename or revoke",
    ),
  ];

  return (
    <TableCard
      title="Bindings"
      toolbar={
        <>
          <OptionSelect
            id="filter-capability"
            label="Capability"
            className="w-44"
            selectClassName="h-8"
            anyLabel="All"
            value={capability}
            options={CAPABILITY_IDS}
            onChange={(v) => setCapability(v as TCapabilityId | "")}
          />
          <OptionSelect
            id="filter-status"
            label="Status"
            className="w-36"
            selectClassName="h-8"
            anyLabel="All"
            value={status}
            options={STATUSES}
            onChange={(v) => setStatus(v as TBindingStatus | "")}
          />
        </>
      }
      query={list}
      what="bindings"
      emptyText="No bindings match."
      loadMoreLabel="Load more bindings"
      caption="Provider bindings of this workspace"
      columns={columns}
    />
  );
}

/** Provider bindings: create from a credential, list with status and budget use, revoke. Owners and admins only. */
export function BindingsView({ ws }: { ws: string }) {
  return (
    <>
      <PageHeader
        title="Provider bindings"
        description="Which credential serves which capability of this workspace, within which limits and budget."
      />
      <div className="space-y-6">
        <AdminOnly ws={ws} what="see and manage provider bindings">
          <>
            <CreateBindingForm ws={ws} />
            <BindingsTable ws={ws} />
          </>
        </AdminOnly>
      </div>
    </>
  );
}
