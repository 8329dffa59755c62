import { Building2, Gauge, KeyRound, LayoutDashboard, Users, type LucideIcon } from "lucide-react";
import type { TRole } from "@/server/domain/identity/access.service";

/** A link in a workspace's section of the sidebar; `path` is below /console/w/{ws} ("" is the overview). */
export type TWorkspaceNavItem = {
  label: string;
  icon: LucideIcon;
  path: string;
  /** Hide the link below this role (the server still enforces it). */
  minRole?: TRole;
};

/** A user-level link (not tied to a workspace). */
export type TAccountNavItem = { label: string; icon: LucideIcon; href: string };

/**
 * The console's navigation, as data. New areas plug in here and nowhere else:
 * e.g. { label: "Products", icon: Package, path: "/products" },
 * { label: "Credentials", ... }, { label: "Audit log", ..., minRole: "admin" },
 * { label: "Capability invocations", ... }.
 */
export const WORKSPACE_NAV: TWorkspaceNavItem[] = [
  { label: "Overview", icon: LayoutDashboard, path: "" },
  { label: "Members", icon: Users, path: "/members" },
  { label: "Plan & budgets", icon: Gauge, path: "/plan" },
];

export const ACCOUNT_NAV: TAccountNavItem[] = [
  { label: "All workspaces", icon: Building2, href: "/console" },
  { label: "API tokens", icon: KeyRound, href: "/console/tokens" },
];

export const workspaceHref = (ws: string, path = "") => `/console/w/${encodeURIComponent(ws)}${path}`;

const RANK: Record<TRole, number> = { owner: 4, admin: 3, developer: 2, viewer: 1 };

/** Client-side hint only (to hide or disable controls); every procedure re-checks the role. */
export function hasRole(role: TRole | undefined, min: TRole): boolean {
  return role !== undefined && RANK[role] >= RANK[min];
}
