import type { Metadata } from "next";
import { WebhooksView } from "@/components/console/webhooks/webhooks-view";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <WebhooksView ws={ws} />;
}
