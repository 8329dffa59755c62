import type { Metadata } from "next";
import { ProductsView } from "@/components/console/source/products-view";

export const metadata: Metadata = { title: "Products" };

export default async function ProductsPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <ProductsView ws={ws} />;
}
