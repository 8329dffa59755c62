import type { Metadata } from "next";
import { RevisionView } from "@/components/console/source/revision-view";

export const metadata: Metadata = { title: "Revision" };

export default async function RevisionPage({ params }: { params: Promise<{ ws: string; rev: string }> }) {
  const { ws, rev } = await params;
  return <RevisionView ws={ws} rev={rev} />;
}
