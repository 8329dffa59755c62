import type { Metadata } from "next";
import { ReleaseView } from "@/components/console/releases/release-view";

export const metadata: Metadata = { title: "Release" };

export default async function ReleasePage({ params }: { params: Promise<{ ws: string; rel: string }> }) {
  const { ws, rel } = await params;
  return <ReleaseView ws={ws} rel={rel} />;
}
