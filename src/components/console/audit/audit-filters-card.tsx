"use client";

import { useQuery } from "@tanstack/react-query";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Select } from "@/components/ui/select";
import { useTRPC } from "@/lib/trpc/client";
import { Field } from "../shared/field";
import type { TPerson } from "../shared/person";
import { ExportCsvButton, TimeRangeFilter } from "../shared/url-filters";
import { AddFilterForm, FilterChips, type TFilterKey } from "./audit-filter-controls";
import type { TAuditRow } from "./audit-record-details";

const AUDIT_CSV_HEADER = [
  "id",
  "created_at",
  "sequence",
  "action",
  "actor_kind",
  "actor_id",
  "actor_name",
  "target_kind",
  "target_id",
  "target_name",
  "correlation_id",
  "details",
] as const;

type TUrlFilters = {
  active: [TFilterKey, string][];
  filters: Partial<Record<TFilterKey, string>>;
  range: string;
  setFilters: (changes: Partial<Record<TFilterKey | "range", string | null>>) => void;
  clearAll: () => void;
};

/** Names for actor and target ids: members, service identities (admins see them) and products. */
function useNames(ws: string, isAdmin: boolean, people: Map<string, TPerson>) {
  const trpc = useTRPC();
  const members = useQuery(trpc.workspaces.members.queryOptions({ ws, limit: 200, order: "asc" }));
  const identities = useQuery({
    ...trpc.serviceIdentities.list.queryOptions({ ws, limit: 200, order: "asc" }),
    enabled: isAdmin,
  });
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 200, order: "desc" }));
  const names = new Map<string, string>([
    ...(members.data?.items ?? []).map((m): [string, string] => [m.user_id, `${m.name} (${m.email})`]),
    ...(identities.data?.items ?? []).map((i): [string, string] => [i.id, i.name]),
    ...(products.data?.items ?? []).map((p): [string, string] => [p.id, p.name]),
  ]);
  const nameOf = (id: string | null | undefined) =>
    id ? (names.get(id) ?? (people.get(id) ? `${people.get(id)!.name} (${people.get(id)!.email})` : null)) : null;
  return {
    members: members.data?.items ?? [],
    identities: identities.data?.items ?? [],
    products: products.data?.items ?? [],
    names,
    nameOf,
  };
}

/** The audit log's filters: time range, actor and product pickers, any other filter as a chip, and CSV export. */
export function AuditFiltersCard({
  ws,
  actions,
  isAdmin,
  url,
  rows,
  people,
  more,
}: {
  ws: string;
  actions: readonly string[];
  isAdmin: boolean;
  url: TUrlFilters;
  rows: TAuditRow[];
  people: Map<string, TPerson>;
  /** Whether more records exist than are loaded (the export says so). */
  more: boolean;
}) {
  const { active, filters, range, setFilters, clearAll } = url;
  const setFilter = (key: TFilterKey, value: string | null) => setFilters({ [key]: value });
  const { members, identities, products, names, nameOf } = useNames(ws, isAdmin, people);
  const csvRows = rows.map((r) => [
    r.id,
    r.created_at,
    r.sequence,
    r.action,
    r.actor.kind,
    r.actor.id,
    nameOf(r.actor.id),
    r.target?.kind,
    r.target?.id,
    nameOf(r.target?.id),
    r.correlation_id,
    JSON.stringify(r.details),
  ]);

  return (
    <Card>
      <CardHeader>
        <CardTitle>Filters</CardTitle>
        <CardDescription>Filters combine; since is inclusive, until exclusive.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <div className="flex flex-wrap items-end gap-4">
          <TimeRangeFilter
            idPrefix="audit"
            values={{ range, since: filters.since ?? "", until: filters.until ?? "" }}
            onChange={setFilters}
          />
          <Field id="audit-actor" label="Actor">
            <Select
              id="audit-actor"
              value={filters.actor_id ?? ""}
              onChange={(e) => setFilter("actor_id", e.target.value || null)}
            >
              <option value="">Anyone</option>
              {members.map((m) => (
                <option key={m.user_id} value={m.user_id}>
                  {m.name} ({m.email})
                </option>
              ))}
              {identities.map((i) => (
                <option key={i.id} value={i.id}>
                  {i.name} (service identity)
                </option>
              ))}
              {filters.actor_id && !names.has(filters.actor_id) ? (
                <option value={filters.actor_id}>{filters.actor_id}</option>
              ) : null}
            </Select>
          </Field>
          <Field id="audit-product" label="Product">
            <Select
              id="audit-product"
              value={filters.target_id ?? ""}
              onChange={(e) => setFilter("target_id", e.target.value || null)}
            >
              <option value="">Any target</option>
              {products.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
              {filters.target_id && !products.some((p) => p.id === filters.target_id) ? (
                <option value={filters.target_id}>{nameOf(filters.target_id) ?? filters.target_id}</option>
              ) : null}
            </Select>
          </Field>
        </div>
        <AddFilterForm actions={actions} onAdd={setFilter} />
        <FilterChips active={active} onRemove={(k) => setFilter(k, null)} onClear={clearAll} nameOf={nameOf} />
        <ExportCsvButton ws={ws} what="audit" header={AUDIT_CSV_HEADER} rows={csvRows} more={more} />
      </CardContent>
    </Card>
  );
}
