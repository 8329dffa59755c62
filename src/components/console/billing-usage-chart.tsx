"use client";

import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { UsageChart } from "./usage-chart";

/** The billing page's chart: spend (or calls) per UTC day by capability. */
export function BillingUsageChart({ ws }: { ws: string }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Usage by day</CardTitle>
        <CardDescription>Priced Bridge calls per UTC day, by capability; the invoices below are final.</CardDescription>
      </CardHeader>
      <CardContent>
        <UsageChart ws={ws} allowProductView={false} initialMetric="spend" heading="Per day, by capability" />
      </CardContent>
    </Card>
  );
}
