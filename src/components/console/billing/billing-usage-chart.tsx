"use client";

import { SectionCard } from "../shared/section-card";
import { UsageChart } from "../overview/usage-chart";

/** The billing page's chart: spend (or calls) per UTC day by capability. */
export function BillingUsageChart({ ws }: { ws: string }) {
  return (
    <SectionCard
      title="Usage by day"
      description="Priced Bridge calls per UTC day, by capability; the invoices below are final."
    >
      <UsageChart ws={ws} allowProductView={false} initialMetric="spend" heading="Per day, by capability" />
    </SectionCard>
  );
}
