import type { Metadata } from "next";
import { TiersView } from "@/components/console/tiers-view";

export const metadata: Metadata = { title: "Subscription tiers" };

export default function TiersPage() {
  return <TiersView />;
}
