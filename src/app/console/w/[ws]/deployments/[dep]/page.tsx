import type { Metadata } from "next";
import { DeploymentView } from "@/components/console/deployments/deployment-view";

export const metadata: Metadata = { title: "Deployment" };

export default async function DeploymentPage({ params }: { params: Promise<{ ws: string; dep: string }> }) {
  const { ws, dep } = await params;
  return <DeploymentView ws={ws} dep={dep} />;
}
