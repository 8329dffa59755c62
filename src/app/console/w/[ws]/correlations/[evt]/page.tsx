import type { Metadata } from "next";
import { CorrelationView } from "@/components/console/audit/correlation-view";

export const metadata: Metadata = { title: "Correlation" };

export default async function CorrelationPage({ params }: { params: Promise<{ ws: string; evt: string }> }) {
  const { ws, evt } = await params;
  return <CorrelationView ws={ws} evt={evt} />;
}
