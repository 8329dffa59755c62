"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TResultReason } from "@/server/bridge/bridge.contract";
import type { TCapabilityCall } from "@/server/domain/capabilities/capability-calls.contract";
import { LoadMore } from "../shared/load-more";
import { OptionSelect } from "../shared/option-select";
import { Loading, PageHeader } from "../shared/page-header";
import { ExportCsvButton, TimeRangeFilter, useTimeWindow, useUrlFilters } from "../shared/url-filters";
import { useCallerNames } from "./invocation-callers";
import { RESULT_REASONS } from "./invocation-reasons";
import { InvocationsTable } from "./invocations-table";

const OUTCOMES = ["completed", "denied", "failed", "requested"] as const;
const CAPABILITIES = ["ai.generate", "storage.object", "data.kv", "email.send"] as const;

const FILTER_KEYS = [
  "product_id",
  "outcome",
  "capability",
  "reason",
  "service_identity_id",
  "range",
  "since",
  "until",
] as const;

const CSV_HEADER = [
  "id",
  "created_at",
  "capability",
  "action",
  "outcome",
  "reason",
  "provider",
  "fallback_used",
  "usage_units",
  "usage_unit",
  "charge_micros",
  "charge_currency",
  "product_id",
  "product_name",
  "service_identity_id",
  "service_identity_name",
  "deployment_id",
  "correlation_id",
  "latency_ms",
  "overhead_ms",
] as const;

/**
 * Bridge calls: filter by time range, product, caller, outcome, reason and
 * capability (all kept in the URL), each row opening its drill-down, and a
 * CSV export of exactly the rows shown.
 */
export function InvocationsView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const { values: f, set, clear } = useUrlFilters(FILTER_KEYS);
  const timeWindow = useTimeWindow(f);
  const names = useCallerNames(ws);
  const list = useInfiniteQuery(
    trpc.invocations.search.infiniteQueryOptions(
      {
        ws,
        limit: 50,
        order: "desc",
        ...(f.product_id ? { product_id: f.product_id } : {}),
        ...(f.outcome ? { outcome: f.outcome as (typeof OUTCOMES)[number] } : {}),
        ...(f.capability ? { capability: f.capability as (typeof CAPABILITIES)[number] } : {}),
        ...(f.reason ? { reason: f.reason as TResultReason } : {}),
        ...(f.service_identity_id ? { service_identity_id: f.service_identity_id } : {}),
        ...timeWindow,
      },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = FILTER_KEYS.some((k) => f[k]);
  // An identity id from a shared link that this viewer cannot list still shows as an option.
  const identityOptions = names.identities.map((i) => ({ value: i.id, label: i.name }));
  if (f.service_identity_id && !names.identityName.has(f.service_identity_id))
    identityOptions.push({ value: f.service_identity_id, label: f.service_identity_id });

  const csvRows = rows.map((r: TCapabilityCall) => [
    r.id,
    r.created_at,
    r.capability,
    r.action,
    r.outcome,
    r.reason,
    r.provider,
    r.fallback_used,
    r.usage.units,
    r.usage.unit,
    r.charge?.amount_micros,
    r.charge?.currency,
    r.product_id,
    names.productName.get(r.product_id),
    r.service_identity_id,
    r.service_identity_id ? names.identityName.get(r.service_identity_id) : null,
    r.deployment_id,
    r.correlation_id,
    r.latency_ms,
    r.overhead_ms,
  ]);

  return (
    <div className="space-y-6">
      <PageHeader
        title="Capability invocations"
        description="Every Bridge call with its outcome, reason, provider and usage. Content is never stored: only sizes and hashes."
      />
      <Card>
        <CardContent className="space-y-4 pt-6">
          <div className="flex flex-wrap items-end gap-4">
            <TimeRangeFilter idPrefix="inv" values={f} onChange={set} />
            <OptionSelect
              id="inv-product"
              label="Product"
              value={f.product_id}
              onChange={(v) => set({ product_id: v })}
              anyLabel="All products"
              options={names.products.map((p) => ({ value: p.id, label: p.name }))}
            />
            <OptionSelect
              id="inv-caller"
              label="Service identity"
              value={f.service_identity_id}
              onChange={(v) => set({ service_identity_id: v })}
              anyLabel="Any caller"
              options={identityOptions}
            />
            <OptionSelect
              id="inv-outcome"
              label="Outcome"
              value={f.outcome}
              onChange={(v) => set({ outcome: v })}
              anyLabel="Any outcome"
              options={OUTCOMES}
            />
            <OptionSelect
              id="inv-reason"
              label="Reason"
              value={f.reason}
              onChange={(v) => set({ reason: v })}
              anyLabel="Any reason"
              options={RESULT_REASONS}
            />
            <OptionSelect
              id="inv-capability"
              label="Capability"
              value={f.capability}
              onChange={(v) => set({ capability: v })}
              anyLabel="Any capability"
              options={CAPABILITIES}
            />
          </div>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <ExportCsvButton
              ws={ws}
              what="invocations"
              header={CSV_HEADER}
              rows={csvRows}
              more={Boolean(list.hasNextPage)}
            />
            {filtered ? (
              <Button variant="link" size="sm" onClick={clear}>
                Clear filters
              </Button>
            ) : null}
          </div>
        </CardContent>
      </Card>
      {list.error ? <Alert problem={problemOf(list.error)} /> : null}
      {list.isLoading ? <Loading what="invocations" /> : <InvocationsTable ws={ws} rows={rows} names={names} />}
      <LoadMore query={list} className="" size="md" />
    </div>
  );
}
