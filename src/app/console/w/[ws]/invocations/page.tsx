import type { Metadata } from "next";
import { InvocationsView } from "@/components/console/invocations-view";

export const metadata: Metadata = { title: "Capability invocations" };

export default async function InvocationsPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <InvocationsView ws={ws} />;
}
