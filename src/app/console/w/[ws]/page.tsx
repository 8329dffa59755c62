import type { Metadata } from "next";
import { WorkspaceOverview } from "@/components/console/overview/workspace-overview";

export const metadata: Metadata = { title: "Workspace overview" };

export default async function WorkspacePage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <WorkspaceOverview ws={ws} />;
}
