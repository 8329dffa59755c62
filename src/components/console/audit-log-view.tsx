"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { ChevronDown, ChevronRight, Filter, ShieldCheck, X } from "lucide-react";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Fragment, useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn, focusRing } from "@/components/ui/cn";
import { CopyButton } from "@/components/ui/copy-button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { AppRouter } from "@/server/trpc/root";
import { LoadMore } from "./load-more";
import { hasRole, workspaceHref } from "./nav-config";
import { PageHeader } from "./page-header";
import { ActorLabel, usePeople } from "./person";
import { QueryStates } from "./query-states";
import { ExportCsvButton, localToIso, TimeRangeFilter, useTimeWindow } from "./url-filters";

type TListInput = inferRouterInputs<AppRouter>["audit"]["list"];
export type TAuditRow = inferRouterOutputs<AppRouter>["audit"]["list"]["items"][number];
type TAction = NonNullable<TListInput["action"]>;

const FILTERS = {
  action: "Action",
  actor_id: "Actor",
  target_id: "Target",
  correlation_id: "Correlation",
  since: "Since",
  until: "Until",
} as const;
type TFilterKey = keyof typeof FILTERS;
const FILTER_KEYS = Object.keys(FILTERS) as TFilterKey[];

const AUDIT_CSV_HEADER = [
  "id", "created_at", "sequence", "action", "actor_kind", "actor_id", "actor_name", "target_kind", "target_id", "target_name", "correlation_id", "details",
] as const;

const EVT_RE = /^evt_[0-7][0-9a-hjkmnp-tv-z]{25}$/;
const timeFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium" });

export function formatAuditTime(iso: string): string {
  return timeFormat.format(new Date(iso));
}

/** Red for refusals and failures, amber for owner/admin-only areas, grey otherwise. */
export function actionTone(action: string): "danger" | "warning" | "neutral" {
  if (action.startsWith("authz.") || /(denied|blocked|failed|rejected|revoked)$/.test(action)) return "danger";
  if (/^(billing|credential|binding|service_identity)\./.test(action)) return "warning";
  return "neutral";
}

/** The link to a correlation's event timeline; only evt_ correlation ids have one. */
export function CorrelationLink({ ws, id }: { ws: string; id: string }) {
  if (!EVT_RE.test(id)) return <code className="font-mono text-xs break-all">{id}</code>;
  return (
    <Link
      href={workspaceHref(ws, `/correlations/${id}`)}
      className={cn("font-mono text-xs break-all text-sky-700 underline-offset-4 hover:underline", focusRing)}
      title="Show the events of this correlation"
    >
      {id}
    </Link>
  );
}

function AddFilterForm({ actions, onAdd }: { actions: readonly string[]; onAdd: (key: TFilterKey, value: string) => void }) {
  const [key, setKey] = useState<TFilterKey>("action");
  const [value, setValue] = useState("");
  const isTime = key === "since" || key === "until";

  function submit(e: FormEvent) {
    e.preventDefault();
    const v = key === "action" ? value || actions[0] || "" : isTime ? localToIso(value) : value.trim();
    if (!v) return;
    onAdd(key, v);
    setValue("");
  }

  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-3" aria-label="Add a filter">
      <div className="w-40 space-y-1.5">
        <Label htmlFor="audit-filter-field">Filter by</Label>
        <Select
          id="audit-filter-field"
          value={key}
          onChange={(e) => {
            setKey(e.target.value as TFilterKey);
            setValue("");
          }}
        >
          {FILTER_KEYS.map((k) => (
            <option key={k} value={k}>
              {FILTERS[k]}
            </option>
          ))}
        </Select>
      </div>
      <div className="min-w-64 flex-1 space-y-1.5">
        <Label htmlFor="audit-filter-value">
          {key === "action" ? "Action" : isTime ? `${FILTERS[key]} (your local time)` : `${FILTERS[key]} id`}
        </Label>
        {key === "action" ? (
          <Select id="audit-filter-value" value={value || actions[0]} onChange={(e) => setValue(e.target.value)}>
            {actions.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </Select>
        ) : (
          <Input
            id="audit-filter-value"
            type={isTime ? "datetime-local" : "text"}
            step={isTime ? 1 : undefined}
            required
            autoComplete="off"
            spellCheck={false}
            placeholder={key === "actor_id" ? "usr_… or svc_…" : key === "correlation_id" ? "evt_…" : key === "target_id" ? "an id" : undefined}
            value={value}
            onChange={(e) => setValue(e.target.value)}
          />
        )}
      </div>
      <Button type="submit" variant="secondary">
        <Filter aria-hidden="true" />
        Add filter
      </Button>
    </form>
  );
}

function FilterChips({ active, onRemove, onClear, nameOf }: {
  active: [TFilterKey, string][];
  onRemove: (key: TFilterKey) => void;
  onClear: () => void;
  /** A person's, service identity's or product's name for an actor or target id, when known. */
  nameOf: (id: string) => string | null;
}) {
  if (!active.length) return <p className="text-sm text-slate-600">No filters: showing every record you may see, newest first.</p>;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <ul aria-label="Active filters" className="flex flex-wrap gap-2">
        {active.map(([k, v]) => (
          <li key={k} className="inline-flex items-center gap-1 rounded-full bg-slate-100 py-0.5 pr-1 pl-3 text-xs text-slate-800 ring-1 ring-slate-200 ring-inset">
            <span>
              {FILTERS[k]}:{" "}
              {(k === "actor_id" || k === "target_id") && nameOf(v) ? <>{nameOf(v)} </> : null}
              <code className="font-mono">{v}</code>
            </span>
            <button
              type="button"
              onClick={() => onRemove(k)}
              aria-label={`Remove filter ${FILTERS[k]} ${v}`}
              className={cn("rounded-full p-0.5 text-slate-600 hover:bg-slate-200 hover:text-slate-900", focusRing)}
            >
              <X aria-hidden="true" className="size-3.5" />
            </button>
          </li>
        ))}
      </ul>
      {active.length > 1 ? (
        <Button variant="link" size="sm" onClick={onClear}>
          Clear all
        </Button>
      ) : null}
    </div>
  );
}

/** The expanded part of a row: ids, chain position, hashes and the details JSON. */
export function AuditRecordDetails({ record }: { record: TAuditRow }) {
  return (
    <div className="space-y-3">
      <dl className="grid gap-x-6 gap-y-2 text-xs sm:grid-cols-[auto_1fr]">
        <dt className="text-slate-600">Record id</dt>
        <dd className="flex flex-wrap items-center gap-2">
          <code className="font-mono break-all">{record.id}</code>
          <CopyButton value={record.id} size="sm" label="Copy id" />
        </dd>
        <dt className="text-slate-600">Created (UTC)</dt>
        <dd>
          <time dateTime={record.created_at} className="font-mono">{record.created_at}</time>
        </dd>
        <dt className="text-slate-600">Sequence</dt>
        <dd className="font-mono">{record.sequence}</dd>
        <dt className="text-slate-600">Hash</dt>
        <dd className="font-mono break-all">{record.hash}</dd>
        <dt className="text-slate-600">Previous hash</dt>
        <dd className="font-mono break-all">{record.prev_hash ?? "none (first record of the chain)"}</dd>
      </dl>
      <div className="space-y-1">
        <p className="text-xs text-slate-600">Details</p>
        <pre className="max-h-80 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100">
          {JSON.stringify(record.details, null, 2)}
        </pre>
      </div>
    </div>
  );
}

function ChainCheck({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const [requested, setRequested] = useState(false);
  const verify = useQuery({ ...trpc.audit.verify.queryOptions({ ws }), enabled: requested, staleTime: 0 });
  return (
    <div className="flex flex-wrap items-center gap-3">
      <Button
        variant="secondary"
        size="sm"
        disabled={verify.isFetching}
        onClick={() => (requested ? void verify.refetch() : setRequested(true))}
      >
        <ShieldCheck aria-hidden="true" />
        {verify.isFetching ? "Verifying…" : "Verify hash chain"}
      </Button>
      <div aria-live="polite" className="text-sm">
        {verify.error ? <Alert problem={problemOf(verify.error)} /> : null}
        {verify.data && !verify.isFetching ? (
          verify.data.ok ? (
            <span className="text-emerald-800">Intact: {verify.data.count} records check out.</span>
          ) : (
            <span className="text-rose-800">
              Broken at <code className="font-mono">{verify.data.broken_at}</code> ({verify.data.count} records).
            </span>
          )
        ) : null}
      </div>
    </div>
  );
}

/**
 * The audit log: filter chips kept in the URL (so a filtered view can be
 * shared or linked to), newest first, "Load more" pagination, and rows that
 * expand to their details and hashes.
 */
export function AuditLogView({ ws, actions }: { ws: string; actions: readonly string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));

  const active = FILTER_KEYS.flatMap((k): [TFilterKey, string][] => {
    const v = searchParams.get(k);
    return v ? [[k, v]] : [];
  });
  const filters = Object.fromEntries(active) as Partial<Record<TFilterKey, string>>;
  const range = searchParams.get("range") ?? "";
  const timeWindow = useTimeWindow({ range, since: filters.since ?? "", until: filters.until ?? "" });

  function setFilters(changes: Partial<Record<TFilterKey | "range", string | null>>) {
    const next = new URLSearchParams(searchParams.toString());
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    // An explicit since/until (a chip or the custom range) replaces a relative range.
    if ((changes.since || changes.until) && changes.range === undefined) next.set("range", "custom");
    const qs = next.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  }
  const setFilter = (key: TFilterKey, value: string | null) => setFilters({ [key]: value });

  function clearAll() {
    router.replace(pathname, { scroll: false });
  }

  const records = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions(
      { ws, limit: 50, ...filters, ...timeWindow, action: filters.action as TAction | undefined },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  const rows = records.data?.pages.flatMap((p) => p.items) ?? [];
  const people = usePeople(ws, rows.flatMap((r) => [r.actor.id, r.target?.id]));
  const isAdmin = hasRole(workspace.data?.role, "admin");
  const members = useQuery(trpc.workspaces.members.queryOptions({ ws, limit: 200, order: "asc" }));
  const identities = useQuery({ ...trpc.serviceIdentities.list.queryOptions({ ws, limit: 200, order: "asc" }), enabled: isAdmin });
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 200, order: "desc" }));
  const names = new Map<string, string>([
    ...(members.data?.items ?? []).map((m): [string, string] => [m.user_id, `${m.name} (${m.email})`]),
    ...(identities.data?.items ?? []).map((i): [string, string] => [i.id, i.name]),
    ...(products.data?.items ?? []).map((p): [string, string] => [p.id, p.name]),
  ]);
  const nameOf = (id: string | null | undefined) => (id ? (names.get(id) ?? (people.get(id) ? `${people.get(id)!.name} (${people.get(id)!.email})` : null)) : null);
  const csvRows = rows.map((r) => [
    r.id, r.created_at, r.sequence, r.action, r.actor.kind, r.actor.id, nameOf(r.actor.id), r.target?.kind, r.target?.id, nameOf(r.target?.id),
    r.correlation_id, JSON.stringify(r.details),
  ]);

  function toggle(id: string) {
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change and refusal in this workspace, append-only and hash-chained."
        actions={isAdmin ? <ChainCheck ws={ws} /> : undefined}
      />
      <div className="space-y-6">
        {workspace.data && !isAdmin ? (
          <Alert>Billing, credential, binding and service identity records are visible to owners and admins only.</Alert>
        ) : null}

        <Card>
          <CardHeader>
            <CardTitle>Filters</CardTitle>
            <CardDescription>Filters combine; since is inclusive, until exclusive.</CardDescription>
          </CardHeader>
          <CardContent className="space-y-4">
            <div className="flex flex-wrap items-end gap-4">
              <TimeRangeFilter idPrefix="audit" values={{ range, since: filters.since ?? "", until: filters.until ?? "" }} onChange={setFilters} />
              <div className="space-y-1.5">
                <Label htmlFor="audit-actor">Actor</Label>
                <Select id="audit-actor" value={filters.actor_id ?? ""} onChange={(e) => setFilter("actor_id", e.target.value || null)}>
                  <option value="">Anyone</option>
                  {(members.data?.items ?? []).map((m) => (
                    <option key={m.user_id} value={m.user_id}>{m.name} ({m.email})</option>
                  ))}
                  {(identities.data?.items ?? []).map((i) => (
                    <option key={i.id} value={i.id}>{i.name} (service identity)</option>
                  ))}
                  {filters.actor_id && !names.has(filters.actor_id) ? <option value={filters.actor_id}>{filters.actor_id}</option> : null}
                </Select>
              </div>
              <div className="space-y-1.5">
                <Label htmlFor="audit-product">Product</Label>
                <Select id="audit-product" value={filters.target_id ?? ""} onChange={(e) => setFilter("target_id", e.target.value || null)}>
                  <option value="">Any target</option>
                  {(products.data?.items ?? []).map((p) => (
                    <option key={p.id} value={p.id}>{p.name}</option>
                  ))}
                  {filters.target_id && !(products.data?.items ?? []).some((p) => p.id === filters.target_id) ? (
                    <option value={filters.target_id}>{nameOf(filters.target_id) ?? filters.target_id}</option>
                  ) : null}
                </Select>
              </div>
            </div>
            <AddFilterForm actions={actions} onAdd={setFilter} />
            <FilterChips active={active} onRemove={(k) => setFilter(k, null)} onClear={clearAll} nameOf={nameOf} />
            <ExportCsvButton ws={ws} what="audit" header={AUDIT_CSV_HEADER} rows={csvRows} more={Boolean(records.hasNextPage)} />
          </CardContent>
        </Card>

        <Card>
          <CardContent className="space-y-3 px-0 py-0">
            <QueryStates
              query={records}
              what="audit records"
              empty={rows.length === 0}
              emptyText="No records match."
              errorTitle="The audit log could not be loaded"
            />
            {rows.length ? (
              <Table>
                <TableCaption>Audit records, newest first</TableCaption>
                <TableHeader>
                  <TableRow>
                    <TableHead className="w-10">
                      <span className="sr-only">Details</span>
                    </TableHead>
                    <TableHead>Time</TableHead>
                    <TableHead>Action</TableHead>
                    <TableHead>Actor</TableHead>
                    <TableHead>Target</TableHead>
                    <TableHead>Correlation id</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rows.map((r) => {
                    const expanded = open.has(r.id);
                    const detailsId = `audit-details-${r.id}`;
                    return (
                      <Fragment key={r.id}>
                        <TableRow className={expanded ? "bg-slate-50" : undefined}>
                          <TableCell className="py-2">
                            <Button
                              variant="ghost"
                              size="icon"
                              aria-expanded={expanded}
                              aria-controls={expanded ? detailsId : undefined}
                              aria-label={`${expanded ? "Hide" : "Show"} details of ${r.action} at ${r.created_at}`}
                              onClick={() => toggle(r.id)}
                            >
                              {expanded ? <ChevronDown aria-hidden="true" /> : <ChevronRight aria-hidden="true" />}
                            </Button>
                          </TableCell>
                          <TableCell className="whitespace-nowrap">
                            <time dateTime={r.created_at} title={r.created_at}>
                              {formatAuditTime(r.created_at)}
                            </time>
                          </TableCell>
                          <TableCell>
                            <Badge tone={actionTone(r.action)} className="font-mono">
                              {r.action}
                            </Badge>
                          </TableCell>
                          <TableCell className="text-xs">
                            <ActorLabel kind={r.actor.kind} id={r.actor.id} people={people} />
                          </TableCell>
                          <TableCell className="text-xs">
                            {r.target ? (
                              <ActorLabel kind={r.target.kind} id={r.target.id} people={people} />
                            ) : (
                              <span className="text-slate-600">none</span>
                            )}
                          </TableCell>
                          <TableCell>
                            <CorrelationLink ws={ws} id={r.correlation_id} />
                          </TableCell>
                        </TableRow>
                        {expanded ? (
                          <TableRow id={detailsId} className="bg-slate-50">
                            <TableCell colSpan={6} className="pt-0">
                              <AuditRecordDetails record={r} />
                            </TableCell>
                          </TableRow>
                        ) : null}
                      </Fragment>
                    );
                  })}
                </TableBody>
              </Table>
            ) : null}
            <LoadMore query={records} className="px-5 pb-4" />
          </CardContent>
        </Card>
      </div>
    </>
  );
}
