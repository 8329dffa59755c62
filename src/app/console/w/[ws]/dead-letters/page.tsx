import type { Metadata } from "next";
import { DeadLettersView } from "@/components/console/webhooks/dead-letters-view";

export const metadata: Metadata = { title: "Dead letters" };

export default async function DeadLettersPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <DeadLettersView ws={ws} />;
}
