import type { Metadata } from "next";
import { RateCardsView } from "@/components/console/billing/rate-cards-view";

export const metadata: Metadata = { title: "Rate cards" };

export default function RateCardsPage() {
  return <RateCardsView />;
}
