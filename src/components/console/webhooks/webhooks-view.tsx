"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { useTRPC } from "@/lib/trpc/client";
import { AdminOnly } from "../shared/admin-only";
import { ConfirmAction } from "../shared/confirm-action";
import { OneTimeSecret } from "../shared/one-time-secret";
import { PageHeader } from "../shared/page-header";
import { RelativeTime } from "../shared/relative-time";
import { RenameButton } from "../shared/rename-dialog";
import { actionsColumn, type TColumn } from "../shared/resource-table";
import { SecretRotationActions, SecretState } from "../shared/secret-rotation";
import { StatusChip } from "../shared/status-chip";
import { TableCard } from "../shared/table-card";
import { WebhookTestButton } from "../shared/test-buttons";
import { CreateEndpointForm } from "./create-endpoint-form";
import { DeliveriesPanel, type TEndpoint } from "./deliveries-panel";
import { ALL } from "./event-types";

const ROTATION_COPY = {
  secret: "signing secret",
  overlapHint: (overlap: number) =>
    overlap === 0
      ? "Deliveries carry only the new secret's signature at once: update the receiver first."
      : "Until then every delivery carries two signatures (new and old secret), so the receiver verifies with either while you update it.",
  revokePreviousTitle: "Stop signing with the previous secret?",
  revokePreviousLabel: "Stop old secret",
  revokePreviousPending: "Stopping…",
};

function EndpointsCard({ ws, onSecret }: { ws: string; onSecret: (title: string, secret: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const endpoints = useInfiniteQuery(
    trpc.webhooks.list.infiniteQueryOptions(
      { ws, limit: 50, order: "desc" },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  const [open, setOpen] = useState<string | null>(null);
  const invalidate = () => queryClient.invalidateQueries(trpc.webhooks.pathFilter());
  const rename = useMutation(trpc.webhooks.rename.mutationOptions({ onSuccess: () => invalidate() }));
  const rows = endpoints.data?.pages.flatMap((p) => p.items) ?? [];
  const openEndpoint = rows.find((r) => r.id === open);

  const columns: TColumn<TEndpoint>[] = [
    {
      key: "endpoint",
      label: "Endpoint",
      rowHeader: true,
      cell: (e) => (
        <div>
          <div className="break-words">{e.name}</div>
          <div className="text-xs font-normal break-all">{e.url}</div>
          {e.description && e.description !== e.name ? (
            <div className="text-xs font-normal text-slate-600">{e.description}</div>
          ) : null}
          <code className="font-mono text-xs font-normal text-slate-600">{e.id}</code>
        </div>
      ),
    },
    {
      key: "events",
      label: "Events",
      priority: 3,
      cell: (e) => (
        <div className="flex max-w-72 flex-wrap gap-1">
          {e.event_types.map((t) => (
            <Badge key={t} tone={t === ALL ? "info" : "neutral"}>
              {t === ALL ? "All events" : t}
            </Badge>
          ))}
        </div>
      ),
    },
    {
      key: "status",
      label: "Status",
      cell: (e) => (
        <StatusChip
          status={e.status}
          tones={{ active: "success", disabled: "danger" }}
          note={
            e.status === "active" ? null : (
              <>
                {e.disabled_reason ? <span className="block text-rose-800">{e.disabled_reason}</span> : null}
                Rotate the secret to re-enable.
              </>
            )
          }
        />
      ),
    },
    {
      key: "last",
      label: "Last delivery",
      priority: 2,
      cell: (e) => (
        <div className="space-y-1">
          <RelativeTime iso={e.last_activity_at} />
          <SecretState rotatedAt={e.secret_rotated_at} previousExpiresAt={e.previous_secret_expires_at} />
        </div>
      ),
    },
    actionsColumn((e) => (
      <>
        <RenameButton
          what="webhook endpoint"
          current={e.name}
          mutation={{ ...rename, mutate: (name, opts) => rename.mutate({ ws, wb: e.id, name }, opts) }}
        />
        <WebhookTestButton ws={ws} wb={e.id} label={e.name} />
        <Button
          variant="secondary"
          size="sm"
          aria-expanded={open === e.id}
          aria-controls="webhook-deliveries"
          onClick={() => setOpen(open === e.id ? null : e.id)}
        >
          {open === e.id ? "Hide deliveries" : "Deliveries"}
          <span className="sr-only"> for {e.url}</span>
        </Button>
        <SecretRotationActions
          subject={e.url}
          previousExpiresAt={e.previous_secret_expires_at}
          defaultOverlap={86_400}
          rotate={trpc.webhooks.rotateSecret.mutationOptions()}
          rotateVariables={(overlap) => ({ ws, wb: e.id, previous_secret_expires_in: overlap })}
          onRotated={(data) =>
            onSecret(`New secret for ${data.url}`, data.secret! /* always present outside an idempotent replay */)
          }
          revokePrevious={trpc.webhooks.revokePreviousSecret.mutationOptions()}
          revokePreviousVariables={{ ws, wb: e.id }}
          onChanged={invalidate}
          copy={{
            ...ROTATION_COPY,
            rotateDescription: `${e.url} gets a new secret, shown once. A disabled endpoint is re-enabled.`,
            revokePreviousDescription: `Deliveries to ${e.url} carry only the new secret's signature from now on; a receiver still holding the old secret fails them.`,
          }}
        />
        <ConfirmAction
          mutation={trpc.webhooks.delete.mutationOptions()}
          variables={{ ws, wb: e.id }}
          onDone={async () => {
            if (open === e.id) setOpen(null);
            await invalidate();
          }}
          label="Delete"
          srLabel={e.url}
          title="Delete this endpoint?"
          description={`${e.url} gets no more events, and its delivery history and dead letters are removed. This cannot be undone.`}
          confirmLabel="Delete endpoint"
          pendingLabel="Deleting…"
        />
      </>
    )),
  ];

  return (
    <>
      <TableCard
        title="Endpoints"
        query={endpoints}
        what="endpoints"
        emptyText="No endpoints yet."
        loadMoreLabel="Load more endpoints"
        caption="Webhook endpoints of this workspace"
        columns={columns}
        rows={rows}
      />
      <div id="webhook-deliveries">{openEndpoint ? <DeliveriesPanel ws={ws} endpoint={openEndpoint} /> : null}</div>
    </>
  );
}

/** Webhook endpoints (event subscriptions): add, rotate, delete, and their recent deliveries. Owners and admins only. */
export function WebhooksView({ ws }: { ws: string }) {
  const [secret, setSecret] = useState<{ title: string; secret: string } | null>(null);
  const show = (title: string, s: string) => setSecret({ title, secret: s });
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Send this workspace's events to your HTTPS endpoints. Each endpoint chooses the event types it receives."
      />
      <div className="space-y-6">
        <AdminOnly ws={ws} what="see and manage webhooks">
          <>
            {secret ? (
              <OneTimeSecret
                title={secret.title}
                warning={
                  <>
                    Copy the signing secret now: it will not be shown again. Verify each request&apos;s{" "}
                    <code className="font-mono">webhook-signature</code> with it (Standard Webhooks: HMAC-SHA256 over{" "}
                    <code className="font-mono">webhook-id.webhook-timestamp.body</code>).
                  </>
                }
                label="Signing secret"
                value={secret.secret}
                copyLabel="Copy secret"
                onDone={() => setSecret(null)}
              />
            ) : null}
            <CreateEndpointForm ws={ws} onSecret={show} />
            <EndpointsCard ws={ws} onSecret={show} />
          </>
        </AdminOnly>
      </div>
    </>
  );
}
