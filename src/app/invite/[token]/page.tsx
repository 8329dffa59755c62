import type { Metadata } from "next";
import { getServerSession } from "next-auth";
import Link from "next/link";
import { InviteAccept } from "@/components/console/invitations/invite-accept";
import { Card, CardContent } from "@/components/ui/card";
import { ConsoleProviders } from "@/lib/trpc/client";
import { authOptions } from "@/server/auth/options";
import { previewInvitation } from "@/server/domain/invitations/accept.service";
import { getDb } from "@/server/platform/db/client";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Invitation · Capstan", referrer: "no-referrer" };

const UNUSABLE: Record<string, { title: string; text: string }> = {
  unknown: {
    title: "This invitation link is not valid",
    text: "Check that the whole link was copied, or ask a workspace admin for a new invitation.",
  },
  expired: {
    title: "This invitation has expired",
    text: "Invitation links work for a limited time. Ask a workspace admin to resend it.",
  },
  accepted: {
    title: "This invitation has already been used",
    text: "Each invitation link works once. If you accepted it, sign in to reach the workspace.",
  },
  revoked: {
    title: "This invitation was revoked",
    text: "A workspace admin withdrew it. Ask them for a new invitation if you still need access.",
  },
};

/** The link in an invitation email: accept as the signed-in user, sign in, or create an account. */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  await getDb();
  const [preview, session] = await Promise.all([previewInvitation(token), getServerSession(authOptions())]);
  const unusable = UNUSABLE[preview.state];

  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-md space-y-6">
        <div className="space-y-1 text-center">
          <h1 className="text-2xl font-semibold tracking-tight">
            {unusable ? unusable.title : `Join ${preview.workspace_name ?? "a workspace"} on Capstan`}
          </h1>
          {!unusable ? (
            <p className="text-sm text-slate-600">
              {preview.inviter_name ?? "A workspace admin"} invited <strong>{preview.email}</strong> as {preview.role}.
            </p>
          ) : null}
        </div>
        <Card>
          <CardContent className="space-y-4 py-5">
            {unusable ? (
              <>
                <p className="text-sm text-slate-700">{unusable.text}</p>
                <Link className="text-sm font-medium text-sky-800 underline" href={session ? "/console" : "/signin"}>
                  {session ? "Go to the console" : "Sign in"}
                </Link>
              </>
            ) : (
              <ConsoleProviders session={session}>
                <InviteAccept
                  token={token}
                  email={preview.email!}
                  workspaceId={preview.workspace_id!}
                  workspaceName={preview.workspace_name ?? "the workspace"}
                  accountExists={preview.account_exists}
                  expiresAt={preview.expires_at!}
                  signedInEmail={session?.user?.email ?? null}
                />
              </ConsoleProviders>
            )}
          </CardContent>
        </Card>
      </div>
    </main>
  );
}
