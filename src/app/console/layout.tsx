import type { Metadata } from "next";
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ConsoleShell } from "@/components/console/shell/console-shell";
import { ConsoleProviders } from "@/lib/trpc/client";
import { authOptions } from "@/server/auth/options";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: { default: "Console · Capstan", template: "%s · Capstan console" } };

/** Every console page needs a session: signed-out visitors go to /signin. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const session = await getServerSession(authOptions());
  const userId = (session?.user as { id?: string } | undefined)?.id;
  if (!session || !userId) redirect("/signin");
  return (
    <ConsoleProviders session={session}>
      <ConsoleShell email={session.user?.email ?? ""}>{children}</ConsoleShell>
    </ConsoleProviders>
  );
}
