import type { Metadata } from "next";
import { BillingView } from "@/components/console/billing/billing-view";

export const metadata: Metadata = { title: "Billing" };

export default async function BillingPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <BillingView ws={ws} />;
}
