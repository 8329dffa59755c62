"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { Plus, RefreshCw } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Table, TableActionsHead, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TEventType } from "@/server/platform/outbox";
import type { AppRouter } from "@/server/trpc/root";
import { ConfirmDialog } from "./confirm-dialog";
import { formatDateTime } from "./format";
import { RelativeTime } from "./relative-time";
import { RenameButton } from "./rename-dialog";
import { WebhookTestButton } from "./test-buttons";
import { LoadMore } from "./load-more";
import { OneTimeSecret } from "./one-time-secret";
import { OverlapField, SecretState } from "./secret-rotation";
import { AdminOnly } from "./admin-only";
import { PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

type TOutputs = inferRouterOutputs<AppRouter>["webhooks"];
type TEndpoint = TOutputs["list"]["items"][number];
type TDelivery = TOutputs["deliveries"]["items"][number];

/**
 * Every event type a subscription can filter on. A Record over the server's
 * union, so a new event type is a compile error here until it gets a label.
 */
const EVENT_LABEL: Record<TEventType, string> = {
  "workspace.created": "Workspace created",
  "member.upserted": "Member added",
  "member.role_changed": "Member role changed",
  "plan.changed": "Plan changed",
  "budget.changed": "Budget changed",
  "product.created": "Product created",
  "source_freeze.completed": "Source freeze completed",
  "credential.created": "Credential created",
  "credential.revoked": "Credential revoked",
  "binding.changed": "Binding changed",
  "service_identity.changed": "Service identity changed",
  "capability.contract_ready": "Capability contract ready",
  "capability.invocation_requested": "Capability invocation requested",
  "capability.invocation_resulted": "Capability invocation resulted",
  "deployment.changed": "Deployment status changed",
  "pipeline_run.changed": "Pipeline run status changed",
  "surface.changed": "Surface status changed",
  "access.changed": "Access qualified or revoked",
  "session.changed": "Session opened or closed",
  "invocation.changed": "Invocation admitted, denied, pending or executed",
  "evaluation.changed": "Evaluation queued, deploying, checking, passed or failed",
  "release.changed": "Release status changed",
  "fix.changed": "Fix proposed, approved or rejected",
  "domain.changed": "Custom domain added, verified, failed or deleted",
  "managed_resource.changed": "Managed resource created, provisioned, attached, detached, scheduled for deletion, restored or destroyed",
};
const EVENT_TYPES = Object.keys(EVENT_LABEL) as TEventType[];
const ALL = "*";

const DELIVERY_TONE = { delivered: "success", pending: "info", failed: "danger", dead: "danger" } as const;

function CreateEndpointForm({ ws, onSecret }: { ws: string; onSecret: (title: string, secret: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [name, setName] = useState("");
  const [all, setAll] = useState(true);
  const [types, setTypes] = useState<TEventType[]>([]);
  const [clientError, setClientError] = useState<string | null>(null);
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: async (data) => {
        onSecret(`Endpoint ${data.url} created`, data.secret! /* always present outside an idempotent replay */);
        setUrl("");
        setDescription("");
        setTypes([]);
        setAll(true);
        await queryClient.invalidateQueries(trpc.webhooks.list.pathFilter());
      },
    }),
  );

  function toggle(t: TEventType, on: boolean) {
    setTypes((prev) => (on ? [...prev, t] : prev.filter((x) => x !== t)));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    create.reset();
    if (!all && types.length === 0) {
      setClientError("Choose at least one event type, or all events.");
      return;
    }
    setClientError(null);
    create.mutate({
      ws, url: url.trim(), event_types: all ? [ALL] : types,
      ...(description.trim() ? { description: description.trim() } : {}),
      ...(name.trim() ? { name: name.trim() } : {}),
    });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Add endpoint</CardTitle>
        <CardDescription>
          Events are POSTed as CloudEvents 1.0 JSON, signed per Standard Webhooks, and retried with backoff; what still fails ends up in
          dead letters. An endpoint answering 410 Gone is disabled.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="space-y-4" noValidate>
          <div className="grid gap-3 sm:grid-cols-2">
            <div className="space-y-1.5">
              <Label htmlFor="webhook-url">Endpoint URL</Label>
              <Input
                id="webhook-url"
                name="url"
                type="url"
                required
                autoComplete="off"
                placeholder="https://example.com/webhooks/capstan"
                value={url}
                aria-invalid={problemOf(create.error)?.errors?.some((x) => x.path === "/url") ? true : undefined}
                onChange={(e) => setUrl(e.target.value)}
              />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="webhook-name">Name (optional)</Label>
              <Input
                id="webhook-name"
                name="name"
                maxLength={100}
                autoComplete="off"
                placeholder="Unique in the workspace; default: the description or host"
                value={name}
                onChange={(e) => setName(e.target.value)}
              />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="webhook-description">Description (optional)</Label>
              <Input
                id="webhook-description"
                name="description"
                maxLength={256}
                autoComplete="off"
                value={description}
                onChange={(e) => setDescription(e.target.value)}
              />
            </div>
          </div>
          <fieldset className="space-y-2">
            <legend className="text-sm font-medium text-slate-800">Event types</legend>
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" name="all_events" checked={all} onChange={(e) => setAll(e.target.checked)} className="size-4" />
              <span>
                All events <code className="font-mono text-xs text-slate-600">*</code> (including types added later)
              </span>
            </label>
            <div className="grid gap-1.5 sm:grid-cols-2 lg:grid-cols-3">
              {EVENT_TYPES.map((t) => (
                <label key={t} className={`flex items-center gap-2 text-sm ${all ? "text-slate-600" : ""}`}>
                  <input
                    type="checkbox"
                    name="event_types"
                    value={t}
                    disabled={all}
                    checked={all || types.includes(t)}
                    onChange={(e) => toggle(t, e.target.checked)}
                    className="size-4"
                  />
                  <span>
                    {EVENT_LABEL[t]} <code className="font-mono text-xs text-slate-600">{t}</code>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
          <Button type="submit" disabled={create.isPending || url.trim() === ""}>
            <Plus aria-hidden="true" />
            {create.isPending ? "Adding…" : "Add endpoint"}
          </Button>
        </form>
        {clientError ? <Alert problem={{ detail: clientError }} title="Not added" /> : null}
        {create.error ? <Alert problem={problemOf(create.error)} /> : null}
      </CardContent>
    </Card>
  );
}

function attemptsSummary(d: TDelivery): string {
  if (!d.attempts.length) return d.attempt_count ? `${d.attempt_count} (in flight)` : "none yet";
  return d.attempts.map((a) => (a.status_code === null ? (a.error ?? "error") : String(a.status_code))).join(" → ");
}

function DeliveriesPanel({ ws, endpoint }: { ws: string; endpoint: TEndpoint }) {
  const trpc = useTRPC();
  const deliveries = useQuery(
    trpc.webhooks.deliveries.queryOptions(
      { ws, wb: endpoint.id, limit: 25, order: "desc" },
      // Follow retries while something is still pending.
      { refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === "pending") ? 3000 : false) },
    ),
  );
  const rows = deliveries.data?.items ?? [];

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <CardTitle>Recent deliveries</CardTitle>
          <CardDescription className="break-all">{endpoint.url}</CardDescription>
        </div>
        <Button variant="secondary" size="sm" disabled={deliveries.isFetching} onClick={() => void deliveries.refetch()}>
          <RefreshCw aria-hidden="true" />
          {deliveries.isFetching ? "Refreshing…" : "Refresh"}
        </Button>
      </CardHeader>
      <CardContent className="px-0 py-0">
        <QueryStates query={deliveries} what="deliveries" empty={rows.length === 0} emptyText="No deliveries yet." />
        {rows.length > 0 ? (
          <Table>
            <TableCaption>Recent deliveries to {endpoint.url}</TableCaption>
            <TableHeader>
              <TableRow>
                <TableHead>Event</TableHead>
                <TableHead>Status</TableHead>
                <TableHead>Attempts (status codes)</TableHead>
                <TableHead>Last error</TableHead>
                <TableHead>Created</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((d) => (
                <TableRow key={d.id}>
                  <TableCell>
                    <div className="font-medium">{d.event_type}</div>
                    <code className="font-mono text-xs text-slate-600">{d.event_id}</code>
                  </TableCell>
                  <TableCell>
                    <Badge tone={DELIVERY_TONE[d.status]}>{d.status}</Badge>
                    {d.status === "pending" && d.next_attempt_at ? (
                      <div className="pt-1 text-xs text-slate-600">next try {formatDateTime(d.next_attempt_at)}</div>
                    ) : null}
                  </TableCell>
                  <TableCell>
                    <span className="font-mono text-xs">{attemptsSummary(d)}</span>
                    <span className="sr-only"> ({d.attempt_count} attempts)</span>
                  </TableCell>
                  <TableCell className="max-w-64 text-xs break-words text-slate-600">{d.last_error ?? "—"}</TableCell>
                  <TableCell>{formatDateTime(d.created_at)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        ) : null}
      </CardContent>
    </Card>
  );
}

type TConfirm = { kind: "rotate" | "delete" | "revoke-previous"; endpoint: TEndpoint } | null;

function EndpointsCard({ ws, onSecret }: { ws: string; onSecret: (title: string, secret: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const endpoints = useInfiniteQuery(
    trpc.webhooks.list.infiniteQueryOptions({ ws, limit: 50, order: "desc" }, { getNextPageParam: (page) => page.next_cursor ?? undefined }),
  );
  const [open, setOpen] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<TConfirm>(null);
  const [overlap, setOverlap] = useState(86_400);
  const invalidate = () => queryClient.invalidateQueries(trpc.webhooks.pathFilter());
  const rotate = useMutation(
    trpc.webhooks.rotateSecret.mutationOptions({
      onSuccess: async (data) => {
        setConfirm(null);
        onSecret(`New secret for ${data.url}`, data.secret! /* always present outside an idempotent replay */);
        await invalidate();
      },
    }),
  );
  const remove = useMutation(
    trpc.webhooks.delete.mutationOptions({
      onSuccess: async (_data, vars) => {
        setConfirm(null);
        if (open === vars.wb) setOpen(null);
        await invalidate();
      },
    }),
  );
  const revokePrevious = useMutation(
    trpc.webhooks.revokePreviousSecret.mutationOptions({
      onSuccess: async () => {
        setConfirm(null);
        await invalidate();
      },
    }),
  );
  const rename = useMutation(trpc.webhooks.rename.mutationOptions({ onSuccess: () => invalidate() }));
  const rows = endpoints.data?.pages.flatMap((p) => p.items) ?? [];
  const openEndpoint = rows.find((r) => r.id === open);
  const rotating = confirm?.kind === "rotate";
  const action = confirm?.kind === "rotate" ? rotate : confirm?.kind === "revoke-previous" ? revokePrevious : remove;

  return (
    <>
      <Card>
        <CardHeader>
          <CardTitle>Endpoints</CardTitle>
        </CardHeader>
        <CardContent className="px-0 py-0">
          <QueryStates query={endpoints} what="endpoints" empty={rows.length === 0} emptyText="No endpoints yet." />
          {rows.length > 0 ? (
            <Table>
              <TableCaption>Webhook endpoints of this workspace</TableCaption>
              <TableHeader>
                <TableRow>
                  <TableHead>Endpoint</TableHead>
                  <TableHead>Events</TableHead>
                  <TableHead>Status</TableHead>
                  <TableHead>Last delivery</TableHead>
                  <TableActionsHead />
                </TableRow>
              </TableHeader>
              <TableBody>
                {rows.map((e) => (
                  <TableRow key={e.id}>
                    <TableCell className="max-w-80">
                      <div>
                        <div className="font-medium break-words">{e.name}</div>
                        <div className="text-xs break-all">{e.url}</div>
                        {e.description && e.description !== e.name ? <div className="text-xs text-slate-600">{e.description}</div> : null}
                        <code className="font-mono text-xs text-slate-600">{e.id}</code>
                      </div>
                    </TableCell>
                    <TableCell>
                      <div className="flex max-w-72 flex-wrap gap-1">
                        {e.event_types.map((t) => (
                          <Badge key={t} tone={t === ALL ? "info" : "neutral"}>
                            {t === ALL ? "All events" : t}
                          </Badge>
                        ))}
                      </div>
                    </TableCell>
                    <TableCell>
                      {e.status === "active" ? (
                        <Badge tone="success">Active</Badge>
                      ) : (
                        <>
                          <Badge tone="danger">Disabled</Badge>
                          {e.disabled_reason ? <div className="pt-1 text-xs text-rose-800">{e.disabled_reason}</div> : null}
                          <div className="text-xs text-slate-600">Rotate the secret to re-enable.</div>
                        </>
                      )}
                    </TableCell>
                    <TableCell className="whitespace-nowrap">
                      <RelativeTime iso={e.last_activity_at} />
                      <div className="text-xs">
                        <SecretState rotatedAt={e.secret_rotated_at} previousExpiresAt={e.previous_secret_expires_at} />
                      </div>
                    </TableCell>
                    <TableCell sticky>
                      <div className="flex flex-wrap justify-end gap-2 sm:w-48">
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
                        <Button
                          variant="secondary"
                          size="sm"
                          disabled={e.previous_secret_expires_at !== null}
                          title={e.previous_secret_expires_at ? "Revoke the previous secret (or wait until it expires) before rotating again" : undefined}
                          onClick={() => {
                            rotate.reset();
                            setOverlap(86_400);
                            setConfirm({ kind: "rotate", endpoint: e });
                          }}
                        >
                          Rotate secret<span className="sr-only"> of {e.url}</span>
                        </Button>
                        {e.previous_secret_expires_at ? (
                          <Button
                            variant="secondary"
                            size="sm"
                            onClick={() => {
                              revokePrevious.reset();
                              setConfirm({ kind: "revoke-previous", endpoint: e });
                            }}
                          >
                            Revoke previous secret<span className="sr-only"> of {e.url}</span>
                          </Button>
                        ) : null}
                        <Button
                          variant="danger"
                          size="sm"
                          onClick={() => {
                            remove.reset();
                            setConfirm({ kind: "delete", endpoint: e });
                          }}
                        >
                          Delete<span className="sr-only"> {e.url}</span>
                        </Button>
                      </div>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          ) : null}
          <LoadMore query={endpoints} label="Load more endpoints" />
        </CardContent>
      </Card>

      <div id="webhook-deliveries">{openEndpoint ? <DeliveriesPanel ws={ws} endpoint={openEndpoint} /> : null}</div>

      <ConfirmDialog
        open={confirm !== null}
        onClose={() => setConfirm(null)}
        title={rotating ? "Rotate the signing secret?" : confirm?.kind === "revoke-previous" ? "Stop signing with the previous secret?" : "Delete this endpoint?"}
        description={
          confirm?.kind === "rotate"
            ? `${confirm.endpoint.url} gets a new secret, shown once. A disabled endpoint is re-enabled.`
            : confirm?.kind === "revoke-previous"
              ? `Deliveries to ${confirm.endpoint.url} carry only the new secret's signature from now on; a receiver still holding the old secret fails them.`
              : `${confirm?.endpoint.url ?? ""} gets no more events, and its delivery history and dead letters are removed. This cannot be undone.`
        }
        variant={confirm?.kind === "rotate" ? "primary" : "danger"}
        confirmLabel={rotating ? "Rotate secret" : confirm?.kind === "revoke-previous" ? "Stop old secret" : "Delete endpoint"}
        pendingLabel={rotating ? "Rotating…" : confirm?.kind === "revoke-previous" ? "Stopping…" : "Deleting…"}
        pending={action.isPending}
        disabled={rotate.isPending || remove.isPending || revokePrevious.isPending}
        error={action.error}
        onConfirm={() => {
          if (!confirm) return;
          if (confirm.kind === "rotate") rotate.mutate({ ws, wb: confirm.endpoint.id, previous_secret_expires_in: overlap });
          else if (confirm.kind === "revoke-previous") revokePrevious.mutate({ ws, wb: confirm.endpoint.id });
          else remove.mutate({ ws, wb: confirm.endpoint.id });
        }}
      >
        {rotating ? (
          <OverlapField
            id="webhook-rotate-overlap"
            value={overlap}
            onChange={setOverlap}
            hint={overlap === 0
              ? "Deliveries carry only the new secret's signature at once: update the receiver first."
              : "Until then every delivery carries two signatures (new and old secret), so the receiver verifies with either while you update it."}
          />
        ) : null}
      </ConfirmDialog>
    </>
  );
}

/** Webhook endpoints (event subscriptions): add, rotate, delete, and their recent deliveries. Owners and admins only. */
export function WebhooksView({ ws }: { ws: string }) {
  const [secret, setSecret] = useState<{ title: string; secret: string } | null>(null);

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
            <CreateEndpointForm ws={ws} onSecret={(title, s) => setSecret({ title, secret: s })} />
            <EndpointsCard ws={ws} onSecret={(title, s) => setSecret({ title, secret: s })} />
          </>
        </AdminOnly>
      </div>
    </>
  );
}
