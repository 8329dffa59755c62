import {
  Activity,
  Building2,
  Database,
  Fingerprint,
  Gauge,
  Globe,
  Hourglass,
  KeyRound,
  KeySquare,
  Layers,
  LayoutDashboard,
  Link2,
  Lock,
  MailWarning,
  Package,
  Receipt,
  Rocket,
  ScrollText,
  Send,
  Server,
  Settings,
  Users,
  Wallet,
  Webhook,
  type LucideIcon,
} from "lucide-react";
import type { TRole } from "@/server/domain/identity/workspace-access.service";

/** A link in a workspace's section of the sidebar; `path` is below /console/w/{ws} ("" is the overview). */
export type TWorkspaceNavItem = {
  label: string;
  icon: LucideIcon;
  path: string;
  /** Hide the link below this role (the server still enforces it). */
  minRole?: TRole;
};

/** A user-level link (not tied to a workspace). */
/** `platform`: shown only to owners and admins of the platform workspace (others would get a 403). */
export type TAccountNavItem = { label: string; icon: LucideIcon; href: string; platform?: boolean };

/**
 * The console's navigation, as data. New areas plug in here and nowhere else.
 */
export const WORKSPACE_NAV: TWorkspaceNavItem[] = [
  { label: "Overview", icon: LayoutDashboard, path: "" },
  { label: "Members", icon: Users, path: "/members" },
  { label: "Plan & budgets", icon: Gauge, path: "/plan" },
  { label: "Billing", icon: Wallet, path: "/billing" },
  { label: "Products", icon: Package, path: "/products" },
  { label: "Deployments", icon: Rocket, path: "/deployments" },
  { label: "Releases", icon: Send, path: "/releases" },
  { label: "Domains", icon: Globe, path: "/domains" },
  { label: "Resources", icon: Database, path: "/resources" },
  { label: "Capability invocations", icon: Activity, path: "/invocations" },
  { label: "Pending operations", icon: Hourglass, path: "/pending", minRole: "admin" },
  { label: "Credentials", icon: Lock, path: "/credentials", minRole: "admin" },
  { label: "Provider bindings", icon: Link2, path: "/bindings", minRole: "admin" },
  { label: "Service identities", icon: Fingerprint, path: "/service-identities", minRole: "admin" },
  { label: "Webhooks", icon: Webhook, path: "/webhooks", minRole: "admin" },
  { label: "Dead letters", icon: MailWarning, path: "/dead-letters", minRole: "admin" },
  // Viewers see the audit log too; restricted actions are filtered server-side.
  { label: "Audit log", icon: ScrollText, path: "/audit" },
  // Everyone sees settings; viewers and developers read them, owners and admins change them.
  { label: "Settings", icon: Settings, path: "/settings" },
];

export const ACCOUNT_NAV: TAccountNavItem[] = [
  { label: "All workspaces", icon: Building2, href: "/console" },
  { label: "API tokens", icon: KeyRound, href: "/console/tokens" },
  // Platform owners and admins only (others would get a 403 on the page): hidden from everyone else.
  { label: "Signing keys", icon: KeySquare, href: "/console/signing-keys", platform: true },
  { label: "Rate cards", icon: Receipt, href: "/console/rate-cards", platform: true },
  { label: "Subscription tiers", icon: Layers, href: "/console/tiers", platform: true },
  { label: "Runner hosts", icon: Server, href: "/console/runner-hosts", platform: true },
];

/** The platform operator's workspace: its owners and admins run signing keys, rate cards and tiers. */
export const PLATFORM_WORKSPACE = "ws_platform";

export const workspaceHref = (ws: string, path = "") => `/console/w/${encodeURIComponent(ws)}${path}`;

const RANK: Record<TRole, number> = { owner: 4, admin: 3, developer: 2, viewer: 1 };

/** Client-side hint only (to hide or disable controls); every procedure re-checks the role. */
export function hasRole(role: TRole | undefined, min: TRole): boolean {
  return role !== undefined && RANK[role] >= RANK[min];
}
