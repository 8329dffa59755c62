"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { Badge } from "@/components/ui/badge";
import { useTRPC } from "@/lib/trpc/client";
import type { TRateCard } from "@/server/domain/billing/billing.contract";
import { formatMicros } from "@/server/domain/billing/currencies";
import { formatDateTime } from "../shared/format";
import { PageHeader } from "../shared/page-header";
import { usePeople } from "../shared/person";
import type { TColumn } from "../shared/resource-table";
import { TableCard } from "../shared/table-card";
import { METERED, PublishForm, type TMetered } from "./rate-card-publish-form";

const PLATFORM = "ws_platform";

/** A metered card's one price in words ("0.0001 USD per cpu-second"); null for a model's card. */
function meteredPrice(r: TRateCard): string | null {
  if (r.provider !== "capstan" || !(r.model in METERED)) return null;
  const m = METERED[r.model as TMetered];
  return `${formatMicros(r.prices[m.field], r.currency, true)} ${m.label.toLowerCase()}`;
}

const STATE_TONE = { "in force": "success", scheduled: "info", superseded: "neutral" } as const;

/** A model's token and call prices; a metered card shows its one price in the first of them. */
const priceColumn = (key: "input_tokens_per_million" | "output_tokens_per_million" | "per_call", label: string) =>
  ({
    key,
    label,
    className: "tabular-nums",
    cell: (r) => {
      const metered = meteredPrice(r);
      if (metered) return key === "input_tokens_per_million" ? metered : "—";
      return formatMicros(r.prices[key], r.currency, true);
    },
  }) satisfies TColumn<TRateCard>;

/** The platform's rate cards (platform owners and admins): every version with its prices, validity and who published it, and a form for a new one. */
export function RateCardsView() {
  const trpc = useTRPC();
  const cards = useInfiniteQuery(
    trpc.billing.listRateCards.infiniteQueryOptions(
      { limit: 100, order: "desc" },
      { getNextPageParam: (p) => p.next_cursor ?? undefined },
    ),
  );
  const rows = (cards.data?.pages.flatMap((p) => p.items) ?? [])
    .slice()
    .sort(
      (a, b) =>
        a.provider.localeCompare(b.provider) ||
        a.model.localeCompare(b.model) ||
        b.effective_from.localeCompare(a.effective_from),
    );
  const people = usePeople(
    PLATFORM,
    rows.map((r) => r.created_by),
  );
  const now = new Date().toISOString();
  const state = (r: TRateCard) =>
    r.effective_from > now ? "scheduled" : r.effective_until && r.effective_until <= now ? "superseded" : "in force";
  const columns: TColumn<TRateCard>[] = [
    {
      key: "model",
      label: "Provider / model",
      cell: (r) => (
        <div>
          <div className="font-medium">
            {r.provider} / {r.model}
          </div>
          <code className="font-mono text-xs text-slate-600">{r.id}</code>
        </div>
      ),
    },
    { key: "state", label: "State", cell: (r) => <Badge tone={STATE_TONE[state(r)]}>{state(r)}</Badge> },
    {
      key: "effective",
      label: "Effective",
      priority: 2,
      cell: (r) => (
        <div>
          from {formatDateTime(r.effective_from)}
          {r.effective_until ? <div>until {formatDateTime(r.effective_until)}</div> : null}
        </div>
      ),
    },
    priceColumn("input_tokens_per_million", "Input / M tokens"),
    priceColumn("output_tokens_per_million", "Output / M tokens"),
    priceColumn("per_call", "Per call"),
    {
      key: "by",
      label: "Published by",
      priority: 3,
      cell: (r) => (
        <div>
          {people.get(r.created_by)?.email ?? r.created_by}
          <div className="text-xs text-slate-600">{formatDateTime(r.created_at)}</div>
        </div>
      ),
    },
  ];
  return (
    <>
      <PageHeader
        title="Rate cards"
        description="Prices per usage unit for each provider model, as immutable versions. Platform owners and admins only."
      />
      <div className="space-y-6">
        <TableCard
          title="Versions"
          description="Grouped by provider and model, newest first. Prices are per unit, exact to the millionth."
          query={cards}
          rows={rows}
          what="rate cards"
          emptyText="No rate cards yet: calls are not priced until their model has one."
          loadMoreLabel="Load more versions"
          caption="Rate card versions"
          columns={columns}
        />
        {cards.isSuccess ? <PublishForm /> : null}
      </div>
    </>
  );
}
