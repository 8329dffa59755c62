import type { Metadata } from "next";
import { DomainsView } from "@/components/console/domains/domains-view";

export const metadata: Metadata = { title: "Domains" };

export default async function DomainsPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <DomainsView ws={ws} />;
}
