"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import { hasRole } from "../shell/nav-config";
import { Loading } from "./page-header";

/**
 * Renders `children` for owners and admins of `ws`; otherwise the loading
 * state, the error, or "Only owners and admins can {what}. You are {role}."
 * A hint only: every procedure re-checks the role on the server.
 */
export function AdminOnly({ ws, what, children }: { ws: string; what: string; children: ReactNode }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  if (workspace.isPending) return <Loading what="workspace" />;
  if (workspace.error) return <Alert problem={problemOf(workspace.error)} />;
  if (!hasRole(workspace.data.role, "admin")) {
    return (
      <Alert>
        Only owners and admins can {what}. You are {workspace.data.role}.
      </Alert>
    );
  }
  return <>{children}</>;
}
