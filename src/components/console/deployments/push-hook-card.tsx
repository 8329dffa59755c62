"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { GitBranch, KeyRound, Trash2 } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { AppRouter } from "@/server/trpc/root";
import { ConfirmAction } from "../shared/confirm-action";
import { formatDateTime } from "../shared/format";
import { OneTimeSecret } from "../shared/one-time-secret";
import { shortId, type TColumn } from "../shared/resource-table";
import { StatusChip } from "../shared/status-chip";
import { TableCard } from "../shared/table-card";
import { workspaceHref } from "../shell/nav-config";

type TDelivery = inferRouterOutputs<AppRouter>["pushHooks"]["deliveries"]["items"][number];
const TONES = {
  freezing: "info",
  deployed: "success",
  awaiting_owner: "warning",
  failed: "danger",
  rejected: "danger",
} as const;
const LABELS = {
  freezing: "Freezing",
  deployed: "Deployed",
  awaiting_owner: "Waiting for the owner",
  failed: "Failed",
  rejected: "Refused",
} as const;

/**
 * Deploy on push, on the product page: the webhook URL and how to sign for it,
 * the secret once (at setup and at each rotation), and the recent deliveries
 * with what each led to (a deployment, a revision waiting on its page, or why
 * it was refused).
 */
export function PushHookCard({ ws, prod, canManage }: { ws: string; prod: string; canManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<string | null>(null);
  const hook = useQuery({ ...trpc.pushHooks.get.queryOptions({ ws, prod }), retry: false });
  const deliveries = useQuery({
    ...trpc.pushHooks.deliveries.queryOptions(
      { ws, prod, limit: 20, order: "desc" },
      { refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === "freezing") ? 2000 : 10_000) },
    ),
    enabled: Boolean(hook.data),
  });
  const refresh = () => queryClient.invalidateQueries(trpc.pushHooks.pathFilter());
  const create = useMutation(
    trpc.pushHooks.create.mutationOptions({
      onSuccess: async (h) => {
        setSecret(h.secret ?? null);
        await refresh();
      },
    }),
  );
  const missing = problemOf(hook.error)?.status === 404;

  const columns: TColumn<TDelivery>[] = [
    { key: "at", label: "Received", rowHeader: true, cell: (d) => formatDateTime(d.created_at) },
    {
      key: "ref",
      label: "Ref",
      cell: (d) => (
        <code className="font-mono text-xs break-all">
          {d.ref ?? "—"}
          {d.commit_sha ? ` @ ${d.commit_sha.slice(0, 7)}` : ""}
        </code>
      ),
    },
    {
      key: "status",
      label: "Outcome",
      cell: (d) => (
        <StatusChip status={d.status} tones={TONES} labels={LABELS} busy={d.status === "freezing"} note={d.message} />
      ),
    },
    {
      key: "led",
      label: "Led to",
      priority: 2,
      cell: (d) =>
        d.deployment_id ? (
          <Link className="font-mono text-xs underline" href={workspaceHref(ws, `/deployments/${d.deployment_id}`)}>
            {shortId(d.deployment_id)}
          </Link>
        ) : d.revision_id ? (
          <Link className="font-mono text-xs underline" href={workspaceHref(ws, `/revisions/${d.revision_id}`)}>
            {shortId(d.revision_id)}
          </Link>
        ) : (
          "—"
        ),
    },
  ];

  if (hook.isPending) return null;
  if (missing || !hook.data) {
    return (
      <Card id="push-hook">
        <CardHeader>
          <CardTitle>Deploy on push</CardTitle>
          <CardDescription>
            A webhook for the repository: each push to the product&apos;s ref is frozen, and deployed to preview when
            its runtime descriptor and capability contract did not change. Anything an owner must approve waits on the
            revision page.
          </CardDescription>
        </CardHeader>
        <CardContent className="space-y-3">
          {hook.error && !missing ? <Alert problem={problemOf(hook.error)} /> : null}
          {create.error ? <Alert title="Not set up" problem={problemOf(create.error)} /> : null}
          {canManage ? (
            <Button size="sm" disabled={create.isPending} onClick={() => create.mutate({ ws, prod })}>
              <GitBranch aria-hidden="true" />
              {create.isPending ? "Setting up…" : "Set up deploy on push"}
            </Button>
          ) : (
            <p className="text-sm text-slate-600">Owners and admins set it up.</p>
          )}
        </CardContent>
      </Card>
    );
  }
  const h = hook.data;
  return (
    <div id="push-hook" className="space-y-4">
      <Card>
        <CardHeader className="flex-row flex-wrap items-start justify-between gap-2">
          <div className="min-w-0 space-y-1">
            <CardTitle>Deploy on push</CardTitle>
            <CardDescription>
              Pushes to <code className="font-mono">{h.tracked_ref}</code> deploy to preview. Add the URL as a webhook
              (content type application/json, push events) with the secret; GitHub signs with{" "}
              <code className="font-mono">X-Hub-Signature-256</code>. A git hook signs with{" "}
              <code className="font-mono">
                Capstan-Signature: t=&lt;unix seconds&gt;,v1=&lt;hex HMAC-SHA256(secret, t + &quot;.&quot; + body)&gt;
              </code>
              .
            </CardDescription>
          </div>
          {canManage ? (
            <div className="flex flex-wrap gap-2">
              <ConfirmAction
                mutation={trpc.pushHooks.rotateSecret.mutationOptions()}
                variables={{ ws, prod }}
                onDone={async (r) => {
                  setSecret(r.secret ?? null);
                  await refresh();
                }}
                label="Rotate secret"
                icon={<KeyRound aria-hidden="true" />}
                variant="secondary"
                confirmVariant="primary"
                title="Rotate the push hook's secret?"
                description="The old secret stops verifying at once: update the repository's webhook with the new one."
                confirmLabel="Rotate"
                pendingLabel="Rotating…"
              />
              <ConfirmAction
                mutation={trpc.pushHooks.delete.mutationOptions()}
                variables={{ ws, prod }}
                onDone={refresh}
                label="Remove"
                icon={<Trash2 aria-hidden="true" />}
                title="Remove deploy on push?"
                description="Pushes are refused from then on; deployments stay."
                confirmLabel="Remove"
                pendingLabel="Removing…"
              />
            </div>
          ) : null}
        </CardHeader>
        <CardContent className="space-y-3">
          <div className="flex flex-wrap items-center gap-2 text-sm">
            <span className="text-slate-600">Webhook URL</span>
            <code data-testid="push-hook-url" className="font-mono text-xs break-all">
              {h.url}
            </code>
            <CopyButton value={h.url} size="sm" label="Copy URL" />
          </div>
          {secret ? (
            <OneTimeSecret
              title="The push hook's secret"
              warning="Copy it now: it is shown once and cannot be read again (rotate it to get a new one)."
              label="Secret"
              value={secret}
              copyLabel="Copy secret"
              onDone={() => setSecret(null)}
            />
          ) : (
            <p className="text-xs text-slate-600">
              Secret{" "}
              {h.secret_rotated_at
                ? `rotated ${formatDateTime(h.secret_rotated_at)}`
                : `set ${formatDateTime(h.created_at)}`}
              ; it is never shown again.
            </p>
          )}
        </CardContent>
      </Card>
      <TableCard
        title="Recent pushes"
        query={deliveries}
        what="pushes"
        emptyText="No push received yet."
        caption="Recent pushes to this product's hook"
        columns={columns}
        rows={deliveries.data?.items ?? []}
        rowKey={(d) => d.id}
      />
    </div>
  );
}
