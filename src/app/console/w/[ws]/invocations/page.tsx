import type { Metadata } from "next";
import { Suspense } from "react";
import { InvocationsView } from "@/components/console/capabilities/invocations-view";
import { Loading } from "@/components/console/shared/page-header";

export const metadata: Metadata = { title: "Capability invocations" };

export default async function InvocationsPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return (
    <Suspense fallback={<Loading what="invocations" />}>
      <InvocationsView ws={ws} />
    </Suspense>
  );
}
