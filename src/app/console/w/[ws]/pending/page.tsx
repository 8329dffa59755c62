import type { Metadata } from "next";
import { PendingView } from "@/components/console/sessions/pending-view";

export const metadata: Metadata = { title: "Pending operations" };

export default async function PendingPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <PendingView ws={ws} />;
}
