import type { Metadata } from "next";
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { safeCallbackUrl } from "@/components/console/identity/callback-url";
import { SignInForm } from "@/components/console/identity/signin-form";
import { Card, CardContent } from "@/components/ui/card";
import { authOptions } from "@/server/auth/options";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in · Capstan" };

type TSearch = { callbackUrl?: string | string[]; error?: string | string[] };
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function SignInPage({ searchParams }: { searchParams: Promise<TSearch> }) {
  const params = await searchParams;
  const callbackUrl = first(params.callbackUrl);
  const session = await getServerSession(authOptions());
  if (session) redirect(safeCallbackUrl(callbackUrl));

  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-sm space-y-6">
        <div className="space-y-1 text-center">
          <h1 className="text-2xl font-semibold tracking-tight">Sign in to Capstan</h1>
          <p className="text-sm text-slate-600">Use your console email and password.</p>
        </div>
        <Card>
          <CardContent className="py-5">
            <SignInForm callbackUrl={callbackUrl} initialError={first(params.error)} />
          </CardContent>
        </Card>
      </div>
    </main>
  );
}
