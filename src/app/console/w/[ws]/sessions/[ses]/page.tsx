import type { Metadata } from "next";
import { SessionView } from "@/components/console/sessions/session-view";

export const metadata: Metadata = { title: "Session" };

export default async function SessionPage({ params }: { params: Promise<{ ws: string; ses: string }> }) {
  const { ws, ses } = await params;
  return <SessionView ws={ws} ses={ses} />;
}
