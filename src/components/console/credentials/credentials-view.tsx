"use client";

import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { useTRPC } from "@/lib/trpc/client";
import { CAPABILITY_RULES, type TCapabilityId } from "@/server/domain/source/contract-rules";
import type { AppRouter } from "@/server/trpc/root";
import { AdminOnly } from "../shared/admin-only";
import { ConfirmAction } from "../shared/confirm-action";
import { formatDateTime } from "../shared/format";
import { ChipList } from "../shared/label-value";
import { PageHeader } from "../shared/page-header";
import { actionsColumn, ShortId, type TColumn } from "../shared/resource-table";
import { TableCard } from "../shared/table-card";
import { CreateCredentialForm } from "./credential-form";

export type TCredentialRow = inferRouterOutputs<AppRouter>["credentials"]["list"]["items"][number];

export const CAPABILITY_IDS = Object.keys(CAPABILITY_RULES) as TCapabilityId[];
const SOON_MS = 14 * 86_400_000;

/** Lines of a textarea, trimmed, empty lines dropped. */
export const lines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

/** Revoked, expired, expiring within 14 days, or active: drives the badge and the row highlight. */
export function credentialState(c: Pick<TCredentialRow, "revoked_at" | "expires_at">, now = Date.now()) {
  if (c.revoked_at) return { label: "Revoked", tone: "neutral" as const };
  const left = new Date(c.expires_at).getTime() - now;
  if (left <= 0) return { label: "Expired", tone: "danger" as const };
  if (left < SOON_MS)
    return { label: `Expires in ${Math.max(1, Math.ceil(left / 86_400_000))} d`, tone: "warning" as const };
  return { label: "Active", tone: "success" as const };
}

function CredentialsTable({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useInfiniteQuery(
    trpc.credentials.list.infiniteQueryOptions(
      { ws, limit: 50, order: "desc" },
      { getNextPageParam: (p) => p.next_cursor ?? undefined },
    ),
  );
  const columns: TColumn<TCredentialRow>[] = [
    {
      key: "provider",
      label: "Provider",
      rowHeader: true,
      cell: (c) => (
        <div>
          <div>{c.provider}</div>
          <ShortId id={c.id} />
        </div>
      ),
    },
    { key: "capability", label: "Capability", cell: (c) => <code className="font-mono text-xs">{c.capability}</code> },
    {
      key: "actions-allowed",
      label: "Actions",
      priority: 3,
      cell: (c) => <ChipList items={c.actions} label="Actions" className="max-w-56" />,
    },
    {
      key: "scope",
      label: "Scope",
      priority: 3,
      className: "max-w-56 font-mono text-xs text-slate-600",
      cell: (c) =>
        c.scope.length ? c.scope.slice(0, 3).join(", ") + (c.scope.length > 3 ? ` +${c.scope.length - 3}` : "") : "—",
    },
    {
      key: "expiry",
      label: "Expiry",
      cell: (c) => {
        const state = credentialState(c);
        return (
          <div>
            <Badge tone={state.tone}>{state.label}</Badge>
            <div className="pt-1 text-xs text-slate-600">{formatDateTime(c.revoked_at ?? c.expires_at)}</div>
          </div>
        );
      },
    },
    actionsColumn(
      (c) =>
        c.revoked_at ? null : (
          <ConfirmAction
            mutation={trpc.credentials.revoke.mutationOptions()}
            variables={{ ws, cred: c.id }}
            onDone={async () => {
              await queryClient.invalidateQueries(trpc.credentials.pathFilter());
              await queryClient.invalidateQueries(trpc.bindings.pathFilter());
            }}
            label="Revoke"
            srLabel={`${c.provider} credential ${c.id}`}
            title="Revoke this credential?"
            description={`${c.provider} (${c.capability}) stops working at once, its secret is destroyed, and every provider binding that uses it is revoked. This cannot be undone.`}
            confirmLabel="Revoke credential"
            pendingLabel="Revoking…"
          />
        ),
      "Revoke",
    ),
  ];

  return (
    <TableCard
      title="Credentials"
      query={list}
      what="credentials"
      emptyText="No credentials yet."
      loadMoreLabel="Load more credentials"
      caption="Credentials of this workspace"
      columns={columns}
      rowClassName={(c) => {
        const tone = credentialState(c).tone;
        return cn(
          tone === "danger" && "bg-rose-50/60",
          tone === "warning" && "bg-amber-50/60",
          c.revoked_at && "text-slate-600",
        );
      }}
    />
  );
}

/** Credentials of a workspace: add (secret write-only), list with expiry state, revoke. Owners and admins only. */
export function CredentialsView({ ws }: { ws: string }) {
  return (
    <>
      <PageHeader
        title="Credentials"
        description={
          ws === "ws_platform"
            ? "Platform credentials: usable by every workspace for capabilities whose credential owner is the platform (data.kv)."
            : "Provider secrets this workspace's bindings use. Secrets are write-only."
        }
      />
      <div className="space-y-6">
        <AdminOnly ws={ws} what="see and manage credentials">
          <>
            <CreateCredentialForm ws={ws} />
            <CredentialsTable ws={ws} />
          </>
        </AdminOnly>
      </div>
    </>
  );
}
