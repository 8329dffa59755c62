import type { Metadata } from "next";
import { ProductView } from "@/components/console/source/product-view";

export const metadata: Metadata = { title: "Product" };

export default async function ProductPage({ params }: { params: Promise<{ ws: string; prod: string }> }) {
  const { ws, prod } = await params;
  return <ProductView ws={ws} prod={prod} />;
}
