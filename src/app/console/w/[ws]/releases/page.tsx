import type { Metadata } from "next";
import { ReleasesView } from "@/components/console/releases/releases-view";

export const metadata: Metadata = { title: "Releases" };

export default async function ReleasesPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <ReleasesView ws={ws} />;
}
