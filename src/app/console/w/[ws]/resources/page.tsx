import type { Metadata } from "next";
import { ResourcesView } from "@/components/console/managed-resources/resources-view";

export const metadata: Metadata = { title: "Resources" };

export default async function ResourcesPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <ResourcesView ws={ws} />;
}
