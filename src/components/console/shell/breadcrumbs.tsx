"use client";

import { skipToken, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, usePathname } from "next/navigation";
import { cn, focusRing } from "@/components/ui/cn";
import { useTRPC, wsOnly } from "@/lib/trpc/client";
import { breadcrumbTrail, type TCrumb } from "./breadcrumb-trail";

/**
 * Where this page sits (workspace name -> area -> item), above the page's h1.
 * Each step truncates with an ellipsis (full text on hover) so the trail fits
 * a phone's width on one line; the last step is the page (aria-current).
 */
export function Breadcrumbs({ item }: { item?: TCrumb[] }) {
  const pathname = usePathname();
  const params = useParams<{ ws?: string }>();
  const trpc = useTRPC();
  const ws = typeof params.ws === "string" ? params.ws : undefined;
  // The sidebar asks the same query: one request, shared through the cache.
  const workspace = useQuery(trpc.workspaces.get.queryOptions(ws ? wsOnly(ws) : skipToken));
  const trail = breadcrumbTrail(pathname, workspace.data?.name, item);
  if (!trail.length) return null;
  return (
    <nav aria-label="Breadcrumb" className="mb-3 min-w-0 print:hidden">
      <ol className="flex min-w-0 items-center gap-1.5 text-sm text-slate-600">
        {trail.map((c, i) => {
          const last = i === trail.length - 1;
          return (
            <li key={i} className={cn("flex min-w-0 items-center gap-1.5", last ? "shrink" : "shrink-[2]")}>
              {i > 0 ? (
                <span aria-hidden="true" className="shrink-0 text-slate-600">
                  /
                </span>
              ) : null}
              {last ? (
                <span aria-current="page" title={c.label} className="truncate font-medium text-slate-900">
                  {c.label}
                </span>
              ) : c.href ? (
                <Link
                  href={c.href}
                  title={c.label}
                  className={cn(
                    "truncate rounded-sm underline-offset-4 hover:text-slate-900 hover:underline",
                    focusRing,
                  )}
                >
                  {c.label}
                </Link>
              ) : (
                <span title={c.label} className="truncate">
                  {c.label}
                </span>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
