import type { Metadata } from "next";
import { DeploymentsView } from "@/components/console/deployments/deployments-view";

export const metadata: Metadata = { title: "Deployments" };

export default async function DeploymentsPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <DeploymentsView ws={ws} />;
}
