"use client";

import { skipToken, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import Link from "next/link";
import { useParams, usePathname } from "next/navigation";
import { cn, focusRing } from "@/components/ui/cn";
import { useTRPC, wsOnly } from "@/lib/trpc/client";
import { ACCOUNT_NAV, hasRole, PLATFORM_WORKSPACE, WORKSPACE_NAV, workspaceHref } from "./nav-config";
import { WorkspaceSwitcher } from "./workspace-switcher";
import type { LucideIcon } from "lucide-react";

function NavLink({
  href,
  label,
  icon: Icon,
  active,
}: {
  href: string;
  label: string;
  icon: LucideIcon;
  active: boolean;
}) {
  return (
    <Link
      href={href}
      aria-current={active ? "page" : undefined}
      className={cn(
        "flex items-center gap-2 rounded-md px-2.5 py-1.5 text-sm text-slate-700 hover:bg-slate-200/70",
        active && "bg-slate-200 font-medium text-slate-900",
        focusRing,
      )}
    >
      <Icon aria-hidden="true" className="size-4 shrink-0" />
      {label}
    </Link>
  );
}

/** Workspace switcher, the workspace's areas (from WORKSPACE_NAV) and the user-level links. */
const LAST_WORKSPACE_KEY = "capstan.console.lastWorkspace";

export function Sidebar() {
  const params = useParams<{ ws?: string }>();
  const pathname = usePathname();
  const trpc = useTRPC();
  const current = typeof params.ws === "string" ? params.ws : undefined;
  // Account pages keep the navigation of the workspace the user came from.
  const [last, setLast] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (current) window.localStorage.setItem(LAST_WORKSPACE_KEY, current);
    else setLast(window.localStorage.getItem(LAST_WORKSPACE_KEY) ?? undefined);
  }, [current]);
  const ws = current ?? last;
  const workspace = useQuery(trpc.workspaces.get.queryOptions(ws ? wsOnly(ws) : skipToken, { retry: false }));
  const role = workspace.error ? undefined : workspace.data?.role;
  // Same query as the workspace switcher's (one request): platform links only for the platform's owners and admins.
  const workspaces = useQuery(trpc.workspaces.list.queryOptions({ limit: 200, order: "asc" }));
  const platformRole = workspaces.data?.items.find((w) => w.id === PLATFORM_WORKSPACE)?.role;
  const accountNav = ACCOUNT_NAV.filter((item) => !item.platform || hasRole(platformRole, "admin"));

  const isActive = (href: string, exact: boolean) =>
    exact ? pathname === href : pathname === href || pathname.startsWith(href + "/");

  return (
    <nav aria-label="Console" className="space-y-6">
      <WorkspaceSwitcher current={ws} />
      {ws && !workspace.error ? (
        <ul className="space-y-0.5">
          {WORKSPACE_NAV.filter((item) => !item.minRole || !role || hasRole(role, item.minRole)).map((item) => {
            const href = workspaceHref(ws, item.path);
            return (
              <li key={item.path}>
                <NavLink href={href} label={item.label} icon={item.icon} active={isActive(href, item.path === "")} />
              </li>
            );
          })}
        </ul>
      ) : null}
      <div className="space-y-1.5">
        <p className="px-2.5 text-xs font-medium tracking-wide text-slate-600 uppercase">Account</p>
        <ul className="space-y-0.5">
          {accountNav.map((item) => (
            <li key={item.href}>
              <NavLink
                href={item.href}
                label={item.label}
                icon={item.icon}
                active={isActive(item.href, item.href === "/console")}
              />
            </li>
          ))}
        </ul>
      </div>
    </nav>
  );
}
