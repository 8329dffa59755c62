import { ACCOUNT_NAV, WORKSPACE_NAV, workspaceHref } from "./nav-config";

/** One step of the breadcrumb trail; the last one is the page itself (no link). */
export type TCrumb = { label: string; href?: string };

/** Detail pages whose area is not a sidebar entry of its own: the area they belong to. */
const PARENT_AREA: Record<string, string> = {
  revisions: "/products",
  surfaces: "/deployments",
  correlations: "/audit",
};

/**
 * The trail of a console page from its path: workspace name -> area -> item.
 * `item` is what the page knows of its item (its name, or a parent and the
 * item: product -> revision); without it a detail page shows its id.
 * Pure (unit-tested): the component adds the workspace name and renders it.
 */
export function breadcrumbTrail(pathname: string, workspaceName: string | undefined, item?: TCrumb[]): TCrumb[] {
  const parts = pathname
    .split("/")
    .filter(Boolean)
    .map((p) => decodeURIComponent(p));
  if (parts[0] !== "console") return [];
  if (parts[1] === "w" && parts[2]) {
    const ws = parts[2];
    const trail: TCrumb[] = [{ label: workspaceName ?? ws, href: workspaceHref(ws) }];
    const [area, ...rest] = parts.slice(3);
    // The item is the last segment (billing/invoices/ivc_x: the invoice).
    const id = rest.at(-1);
    if (!area) return [...trail, { label: "Overview" }];
    // Sessions have no list page of their own (they are opened from a surface): the trail names them.
    if (area === "sessions")
      return [...trail, { label: "Sessions" }, ...(item?.length ? item : id ? [{ label: id }] : [])];
    const areaPath = PARENT_AREA[area] ?? `/${area}`;
    const nav = WORKSPACE_NAV.find((n) => n.path === areaPath && n.path !== "");
    if (!nav) return [...trail, { label: "Page not found" }];
    trail.push({ label: nav.label, href: workspaceHref(ws, nav.path) });
    if (item?.length) trail.push(...item);
    else if (id) trail.push({ label: id });
    return trail;
  }
  if (parts.length === 1) return [{ label: "Workspaces" }];
  const account = ACCOUNT_NAV.find((n) => n.href === `/${parts.slice(0, 2).join("/")}`);
  return [{ label: "Account" }, { label: account?.label ?? "Page not found" }];
}
