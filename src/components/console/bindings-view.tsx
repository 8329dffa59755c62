"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableActionsHead, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { useTRPC } from "@/lib/trpc/client";
import type { TBindingStatus } from "@/server/domain/credentials/bindings.contract";
import type { TCapabilityId } from "@/server/domain/source/contract-rules";
import type { AppRouter } from "@/server/trpc/root";
import { CreateBindingForm } from "./binding-form";
import { BudgetBar } from "./budget-bar";
import { ConfirmDialog } from "./confirm-dialog";
import { CAPABILITY_IDS } from "./credentials-view";
import { RelativeTime } from "./relative-time";
import { RenameButton } from "./rename-dialog";
import { BindingTestButton, TESTABLE_CAPABILITIES } from "./test-buttons";
import { LoadMore } from "./load-more";
import { AdminOnly } from "./admin-only";
import { PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

type TBinding = inferRouterOutputs<AppRouter>["bindings"]["list"]["items"][number];

const STATUSES: TBindingStatus[] = ["requested", "ready", "failed", "revoked", "expired"];
const STATUS_TONE: Record<TBindingStatus, "info" | "success" | "danger" | "neutral" | "warning"> = {
  requested: "info", ready: "success", failed: "danger", revoked: "neutral", expired: "warning",
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
  const [confirm, setConfirm] = useState<TBinding | null>(null);
  const revoke = useMutation(
    trpc.bindings.delete.mutationOptions({
      onSuccess: async () => {
        setConfirm(null);
        await queryClient.invalidateQueries(trpc.bindings.pathFilter());
      },
    }),
  );
  const rename = useMutation(trpc.bindings.rename.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.bindings.pathFilter()) }));
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <>
      <Card>
        <CardHeader className="flex-row flex-wrap items-end justify-between gap-3">
          <CardTitle>Bindings</CardTitle>
          <div className="flex flex-wrap gap-3">
            <div className="w-44 space-y-1">
              <Label htmlFor="filter-capability">Capability</Label>
              <Select id="filter-capability" className="h-8" value={capability} onChange={(e) => setCapability(e.target.value as TCapabilityId | "")}>
                <option value="">All</option>
                {CAPABILITY_IDS.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </Select>
            </div>
            <div className="w-36 space-y-1">
              <Label htmlFor="filter-status">Status</Label>
              <Select id="filter-status" className="h-8" value={status} onChange={(e) => setStatus(e.target.value as TBindingStatus | "")}>
                <option value="">All</option>
                {STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </Select>
            </div>
          </div>
        </CardHeader>
        <CardContent className="px-0 py-0">
          <QueryStates query={list} what="bindings" empty={rows.length === 0} emptyText="No bindings match." />
          {rows.length > 0 ? (
            <Table>
              <TableCaption>Provider bindings of this workspace</TableCaption>
              <TableHeader>
                <TableRow>
                  <TableHead>Binding</TableHead>
                  <TableHead>Status</TableHead>
                  <TableHead>Actions</TableHead>
                  <TableHead className="min-w-56">Budget</TableHead>
                  <TableHead>Last used</TableHead>
                  <TableActionsHead label="Rename or revoke" />
                </TableRow>
              </TableHeader>
              <TableBody>
                {rows.map((b) => (
                  <TableRow key={b.id}>
                    <TableCell>
                      <div>
                        <div className="font-medium break-words">{b.name}</div>
                        <div className="text-xs">
                          <code className="font-mono">{b.capability}</code> · {b.provider}
                        </div>
                        <div className="font-mono text-xs text-slate-600">{b.id}</div>
                        <div className="font-mono text-xs text-slate-600">credential {b.credential_id}</div>
                        {b.capability === "ai.generate" ? (
                          <div className="text-xs text-slate-600">
                            {b.provider_config?.api_style === "anthropic" ? "Anthropic Messages" : "OpenAI-compatible"} API
                          </div>
                        ) : null}
                      </div>
                    </TableCell>
                    <TableCell>
                      <Badge tone={STATUS_TONE[b.status]}>{b.status}</Badge>
                      {b.failure_reason ? <div className="pt-1 text-xs text-slate-600">{b.failure_reason.replaceAll("_", " ")}</div> : null}
                    </TableCell>
                    <TableCell>
                      <div className="flex max-w-48 flex-wrap gap-1">
                        {b.actions.map((a) => (
                          <Badge key={a}>{a}</Badge>
                        ))}
                      </div>
                    </TableCell>
                    <TableCell>
                      <BudgetBar label={`Binding ${b.id}`} used={b.budget.used_units} reserved={b.budget.reserved_units} limit={b.budget.units} />
                    </TableCell>
                    <TableCell className="whitespace-nowrap">
                      <RelativeTime iso={b.last_activity_at} />
                    </TableCell>
                    <TableCell sticky className="text-right">
                      <div className="flex flex-wrap justify-end gap-2">
                      <RenameButton
                        what="binding"
                        current={b.name}
                        mutation={{ ...rename, mutate: (name, opts) => rename.mutate({ ws, bind: b.id, name }, opts) }}
                      />
                      {b.status === "revoked" || b.status === "expired" || !TESTABLE_CAPABILITIES.includes(b.capability) ? null : <BindingTestButton ws={ws} bind={b.id} label={b.name} capability={b.capability} />}
                      {b.status === "revoked" ? null : (
                        <Button
                          variant="danger"
                          size="sm"
                          onClick={() => {
                            revoke.reset();
                            setConfirm(b);
                          }}
                        >
                          Revoke<span className="sr-only"> binding {b.name}</span>
                        </Button>
                      )}
                      </div>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          ) : null}
          <LoadMore query={list} label="Load more bindings" />
        </CardContent>
      </Card>
      <ConfirmDialog
        open={confirm !== null}
        onClose={() => setConfirm(null)}
        title="Revoke this binding?"
        description={`Apps of this workspace can no longer use ${confirm?.capability ?? ""} through ${confirm?.provider ?? ""} with this binding (the Bridge answers binding_revoked). The credential itself stays.`}
        confirmLabel="Revoke binding"
        pendingLabel="Revoking…"
        pending={revoke.isPending}
        error={revoke.error}
        onConfirm={() => confirm && revoke.mutate({ ws, bind: confirm.id })}
      />
    </>
  );
}

/** Provider bindings: create from a credential, list with status and budget use, revoke. Owners and admins only. */
export function BindingsView({ ws }: { ws: string }) {
  return (
    <>
      <PageHeader title="Provider bindings" description="Which credential serves which capability of this workspace, within which limits and budget." />
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
