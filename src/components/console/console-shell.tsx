import Link from "next/link";
import type { ReactNode } from "react";
import { cn, focusRing } from "@/components/ui/cn";
import { Sidebar } from "./sidebar";
import { SignOutButton } from "./sign-out-button";

/** The console frame: header (who is signed in, sign out), sidebar navigation and the page. */
export function ConsoleShell({ email, children }: { email: string; children: ReactNode }) {
  return (
    <div className="min-h-screen">
      <a
        href="#main"
        className={cn("sr-only rounded-md bg-white px-3 py-2 text-sm focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50", focusRing)}
      >
        Skip to content
      </a>
      <header className="flex h-14 items-center justify-between gap-4 border-b border-slate-200 bg-white px-4 md:px-6">
        <Link href="/console" className={cn("rounded-sm text-lg font-semibold tracking-tight", focusRing)}>
          Capstan <span className="font-normal text-slate-500">console</span>
        </Link>
        <div className="flex min-w-0 items-center gap-3">
          <span className="truncate text-sm text-slate-600" title={email}>
            <span className="sr-only">Signed in as </span>
            {email}
          </span>
          <SignOutButton />
        </div>
      </header>
      <div className="md:grid md:grid-cols-[15rem_1fr]">
        <aside className="border-b border-slate-200 bg-slate-100/60 p-4 md:min-h-[calc(100vh-3.5rem)] md:border-r md:border-b-0">
          <Sidebar />
        </aside>
        <main id="main" tabIndex={-1} className="min-w-0 p-4 outline-none md:p-8">
          <div className="mx-auto max-w-5xl">{children}</div>
        </main>
      </div>
    </div>
  );
}
