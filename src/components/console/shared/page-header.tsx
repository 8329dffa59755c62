import type { ReactNode } from "react";
import type { TCrumb } from "../shell/breadcrumb-trail";
import { Breadcrumbs } from "../shell/breadcrumbs";

/**
 * The breadcrumb trail, the page's single h1, an optional description and
 * right-aligned actions. `crumbs`: what the page knows of its item, after
 * workspace and area (its name; or a parent and the item), for the trail.
 */
export function PageHeader({
  title,
  description,
  actions,
  crumbs,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  crumbs?: TCrumb[];
}) {
  return (
    <>
      <Breadcrumbs item={crumbs} />
      <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0 space-y-1">
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{title}</h1>
          {description ? <div className="text-sm text-slate-600">{description}</div> : null}
        </div>
        {actions ? <div className="flex items-center gap-2">{actions}</div> : null}
      </div>
    </>
  );
}

/** A polite placeholder while a query loads (announced once, not per re-render). */
export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="text-sm text-slate-600">
      Loading {what}…
    </p>
  );
}
