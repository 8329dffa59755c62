import type { Metadata } from "next";
import { MembersView } from "@/components/console/workspaces/members-view";

export const metadata: Metadata = { title: "Members" };

export default async function MembersPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <MembersView ws={ws} />;
}
