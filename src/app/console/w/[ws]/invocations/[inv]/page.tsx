import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { InvocationView } from "@/components/console/capabilities/invocation-view";
import { isId } from "@/server/platform/ids";

export const metadata: Metadata = { title: "Invocation" };

/** One Bridge call; an address that is not a capability invocation id is the console's not-found page. */
export default async function InvocationPage({ params }: { params: Promise<{ ws: string; inv: string }> }) {
  const { ws, inv } = await params;
  if (!isId("cap", inv)) notFound();
  return <InvocationView ws={ws} inv={inv} />;
}
