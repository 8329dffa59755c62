"use client";

import { useQuery } from "@tanstack/react-query";
import { SectionCard } from "../shared/section-card";
import { useTRPC } from "@/lib/trpc/client";
import { formatMicros } from "@/server/domain/billing/currencies";
import { formatDateTime } from "../shared/format";
import { QueryStates } from "../shared/query-states";

/** The wallet's balance by currency (paid and granted) and its credit grants in spending order. */
export function BalanceCard({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const wallet = useQuery(trpc.billing.wallet.queryOptions({ ws }));
  const balances = wallet.data?.balances ?? [];
  const grants = wallet.data?.grants ?? [];
  return (
    <SectionCard title="Balance" contentClassName="space-y-3">
      <QueryStates
        query={wallet}
        what="the wallet"
        empty={balances.length === 0}
        emptyText="No money in this wallet yet."
        inset={false}
      />
      {balances.map((b) => (
        <div key={b.currency} className="flex flex-wrap items-baseline gap-x-6 gap-y-1">
          <span className="text-2xl font-semibold tabular-nums">{formatMicros(b.total_micros, b.currency)}</span>
          <span className="text-sm text-slate-700">
            paid {formatMicros(b.paid_micros, b.currency)} · granted {formatMicros(b.granted_micros, b.currency)}
          </span>
        </div>
      ))}
      {grants.length ? (
        <ul className="space-y-1 text-sm text-slate-700" aria-label="Credit grants, in spending order">
          {grants.map((g) => (
            <li key={g.id}>
              Grant {formatMicros(g.remaining_micros, g.currency)} left of {formatMicros(g.amount_micros, g.currency)},
              priority {g.priority}, expires {formatDateTime(g.expires_at)}
            </li>
          ))}
        </ul>
      ) : null}
    </SectionCard>
  );
}
