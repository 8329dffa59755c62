import type { Metadata } from "next";
import { TiersView } from "@/components/console/billing/tiers-view";

export const metadata: Metadata = { title: "Subscription tiers" };

export default function TiersPage() {
  return <TiersView />;
}
