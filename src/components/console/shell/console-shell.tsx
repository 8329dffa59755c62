"use client";

import { Menu, X } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { cn, focusRing } from "@/components/ui/cn";
import { Sidebar } from "./sidebar";
import { SignOutButton } from "./sign-out-button";

/**
 * The console frame: header (who is signed in, sign out), sidebar navigation
 * and the page. Below 768 px the sidebar collapses behind a Menu button in
 * the header (it closes again on navigation and on Escape).
 */
export function ConsoleShell({ email, children }: { email: string; children: ReactNode }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const pathname = usePathname();
  const [shownFor, setShownFor] = useState(pathname);
  if (shownFor !== pathname) {
    // Navigating closes the phone menu (state adjusted during render, not in an effect).
    setShownFor(pathname);
    setMenuOpen(false);
  }
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setMenuOpen(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [menuOpen]);

  return (
    <div className="min-h-screen">
      <a
        href="#main"
        className={cn(
          "sr-only rounded-md bg-white print:hidden px-3 py-2 text-sm focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50",
          focusRing,
        )}
      >
        Skip to content
      </a>
      <header className="flex h-14 items-center print:hidden justify-between gap-3 border-b border-slate-200 bg-white px-4 md:px-6">
        <div className="flex items-center gap-2">
          <Button
            variant="ghost"
            size="icon"
            className="md:hidden"
            aria-expanded={menuOpen}
            aria-controls="console-sidebar"
            aria-label={menuOpen ? "Close menu" : "Menu"}
            onClick={() => setMenuOpen((v) => !v)}
          >
            {menuOpen ? <X aria-hidden="true" /> : <Menu aria-hidden="true" />}
          </Button>
          <Link
            href="/console"
            className={cn("rounded-sm text-lg font-semibold tracking-tight whitespace-nowrap", focusRing)}
          >
            Capstan <span className="font-normal text-slate-600">console</span>
          </Link>
        </div>
        <div className="flex min-w-0 items-center gap-3">
          <span className="truncate text-sm text-slate-600" title={email}>
            <span className="sr-only">Signed in as </span>
            {email}
          </span>
          <SignOutButton />
        </div>
      </header>
      <div className="md:grid md:grid-cols-[15rem_1fr] print:block">
        <aside
          id="console-sidebar"
          className={cn(
            "border-b border-slate-200 bg-slate-100 p-4 print:hidden md:block md:min-h-[calc(100vh-3.5rem)] md:border-r md:border-b-0",
            menuOpen ? "block" : "hidden",
          )}
        >
          <Sidebar />
        </aside>
        <main id="main" tabIndex={-1} className="min-w-0 p-4 outline-none md:p-8 print:p-0">
          <div className="mx-auto max-w-5xl">{children}</div>
        </main>
      </div>
    </div>
  );
}
