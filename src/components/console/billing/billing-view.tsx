"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC, wsOnly } from "@/lib/trpc/client";
import { PageHeader } from "../shared/page-header";
import { hasRole } from "../shell/nav-config";
import { BalanceCard } from "./balance-card";
import { InvoicesTable, OrdersTable, TransactionsTable } from "./billing-tables";
import { BillingUsageChart } from "./billing-usage-chart";
import { AutoTopUpCard, PaymentMethodsCard } from "./collection-panel";
import { StandingBanner } from "./standing-banner";
import { SubscriptionCard } from "./subscription-card";
import { TopUpForm } from "./top-up-form";

/** Billing: balance by currency (paid and granted), grants, top-up (owner/admin), orders, invoices and the ledger. */
export function BillingView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const canWrite = hasRole(workspace.data?.role, "admin");
  return (
    <>
      <PageHeader title="Billing" description="The workspace's wallet: every balance is the sum of its ledger below." />
      <div className="space-y-6">
        <StandingBanner ws={ws} where="billing" />
        <BalanceCard ws={ws} />
        <SubscriptionCard ws={ws} isOwner={hasRole(workspace.data?.role, "owner")} />
        {canWrite ? <TopUpForm ws={ws} /> : null}
        {canWrite ? <PaymentMethodsCard ws={ws} /> : null}
        {canWrite ? <AutoTopUpCard ws={ws} /> : null}
        <BillingUsageChart ws={ws} />
        <OrdersTable ws={ws} />
        <InvoicesTable ws={ws} canWrite={canWrite} />
        <TransactionsTable ws={ws} />
      </div>
    </>
  );
}
