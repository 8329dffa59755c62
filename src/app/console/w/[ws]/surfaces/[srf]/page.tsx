import type { Metadata } from "next";
import { SurfaceView } from "@/components/console/deployments/surface-view";

export const metadata: Metadata = { title: "Surface" };

export default async function SurfacePage({ params }: { params: Promise<{ ws: string; srf: string }> }) {
  const { ws, srf } = await params;
  return <SurfaceView ws={ws} srf={srf} />;
}
