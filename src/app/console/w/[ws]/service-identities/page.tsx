import type { Metadata } from "next";
import { ServiceIdentitiesView } from "@/components/console/service-identities/service-identities-view";

export const metadata: Metadata = { title: "Service identities" };

export default async function ServiceIdentitiesPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <ServiceIdentitiesView ws={ws} />;
}
