import type { Metadata } from "next";
import { BindingsView } from "@/components/console/credentials/bindings-view";

export const metadata: Metadata = { title: "Provider bindings" };

export default async function BindingsPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <BindingsView ws={ws} />;
}
