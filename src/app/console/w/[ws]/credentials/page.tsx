import type { Metadata } from "next";
import { CredentialsView } from "@/components/console/credentials/credentials-view";

export const metadata: Metadata = { title: "Credentials" };

export default async function CredentialsPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return <CredentialsView ws={ws} />;
}
