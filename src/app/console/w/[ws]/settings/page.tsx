import type { Metadata } from "next";
import { SettingsView } from "@/components/console/workspaces/settings-view";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <SettingsView ws={ws} />;
}
