"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge } from "@/components/ui/badge";
import { useTRPC } from "@/lib/trpc/client";
import { formatMinor } from "@/server/domain/billing/currencies";
import type { TTier } from "@/server/domain/billing/subscriptions.contract";
import { CATEGORY_LABEL, formatDateTime } from "../shared/format";
import { PageHeader } from "../shared/page-header";
import type { TColumn } from "../shared/resource-table";
import { TableCard } from "../shared/table-card";
import { TierForm } from "./tier-form";

function budgetsText(t: TTier): string {
  const entries = Object.entries(t.default_budgets) as [keyof typeof CATEGORY_LABEL, number | null][];
  return entries.length
    ? entries.map(([k, v]) => `${CATEGORY_LABEL[k]}: ${v === null ? "unlimited" : v}`).join(", ")
    : "—";
}

const COLUMNS: TColumn<TTier>[] = [
  {
    key: "tier",
    label: "Tier",
    cell: (t) => (
      <div>
        <div className="font-medium">{t.name}</div>
        <code className="font-mono text-xs text-slate-600">{t.tier}</code>
      </div>
    ),
  },
  { key: "plan", label: "Plan", cell: (t) => t.plan },
  {
    key: "price",
    label: "Monthly price",
    className: "tabular-nums",
    cell: (t) => formatMinor(t.monthly_price_minor, t.currency),
  },
  {
    key: "credit",
    label: "Included credit",
    className: "tabular-nums",
    cell: (t) => formatMinor(t.included_credit_minor, t.currency),
  },
  {
    key: "mode",
    label: "Mode",
    cell: (t) => <Badge tone={t.billing_mode === "prepaid" ? "warning" : "neutral"}>{t.billing_mode}</Badge>,
  },
  { key: "budgets", label: "Default budgets", priority: 3, className: "text-xs", cell: budgetsText },
  { key: "changed", label: "Changed", priority: 2, cell: (t) => formatDateTime(t.updated_at) },
];

/** Subscription tiers (platform owners and admins): the price list and a form to create or edit a tier. */
export function TiersView() {
  const trpc = useTRPC();
  const tiers = useQuery(trpc.billing.subscriptions.editableTiers.queryOptions({}));
  const rows = tiers.data?.items ?? [];
  return (
    <>
      <PageHeader
        title="Subscription tiers"
        description="The tiers workspaces subscribe to: price, included credit, the plan they grant. Platform owners and admins only."
      />
      <div className="space-y-6">
        <TableCard
          title="Tiers"
          query={tiers}
          rows={rows}
          rowKey={(t) => t.tier}
          what="subscription tiers"
          emptyText="No tiers yet."
          caption="Subscription tiers, cheapest first"
          columns={COLUMNS}
        />
        {tiers.isSuccess ? <TierForm tiers={rows} /> : null}
      </div>
    </>
  );
}
