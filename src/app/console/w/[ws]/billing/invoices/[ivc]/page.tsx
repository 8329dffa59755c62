import type { Metadata } from "next";
import { InvoiceDocument } from "@/components/console/billing/invoice-document";

export const metadata: Metadata = { title: "Invoice" };

export default async function InvoicePage({ params }: { params: Promise<{ ws: string; ivc: string }> }) {
  const { ws, ivc } = await params;
  return <InvoiceDocument ws={ws} ivc={ivc} />;
}
