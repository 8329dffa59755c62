"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { LogIn } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Alert } from "@/components/ui/alert";
import { Button, buttonVariants } from "@/components/ui/button";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import { SurfaceStatusBadge } from "./deployment-status";
import { SurfaceCard, useSurface } from "./deployment-surface";
import { hasRole, workspaceHref } from "../shell/nav-config";
import { PageFallback } from "../shared/page-query";
import { PageHeader } from "../shared/page-header";
import { SurfaceAccessesCard, SurfaceSessionsCard } from "../sessions/surface-sessions";

/** Titles for the refusals of sessions.open; the problem's detail follows them. */
function openFailure(reason: string | undefined): string {
  return reason === "surface_not_active" ? "The surface is not active" : "The session was not opened";
}

/**
 * One surface: its URLs, status and expiry, "Open session" (which qualifies
 * the caller's access first), its sessions and, for owners and admins, the
 * accesses with Revoke.
 */
export function SurfaceView({ ws, srf }: { ws: string; srf: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const surface = useSurface(ws, srf);
  const open = useMutation(
    trpc.sessions.open.mutationOptions({
      onSuccess: async (session) => {
        await Promise.all([
          queryClient.invalidateQueries(trpc.sessions.list.pathFilter()),
          queryClient.invalidateQueries(trpc.sessions.listAccesses.pathFilter()),
        ]);
        router.push(workspaceHref(ws, `/sessions/${session.id}`));
      },
    }),
  );
  const isAdmin = hasRole(workspace.data?.role, "admin");

  if (!surface.data) return <PageFallback query={surface} title="Surface" what="surface" />;
  const s = surface.data;
  const problem = problemOf(open.error);

  return (
    <>
      <PageHeader
        title="Surface"
        description={
          <span className="flex flex-wrap items-center gap-2">
            <SurfaceStatusBadge status={s.status} />
            <span className="capitalize">{s.environment_type}</span>
            <code className="font-mono text-xs">{s.id}</code>
          </span>
        }
        actions={
          <>
            <Link
              href={workspaceHref(ws, `/deployments/${s.deployment_id}`)}
              className={buttonVariants({ variant: "secondary", size: "sm" })}
            >
              Open deployment
            </Link>
            <Button
              size="sm"
              disabled={s.status !== "active" || open.isPending || open.isSuccess}
              onClick={() => open.mutate({ surface_id: s.id })}
            >
              <LogIn aria-hidden="true" />
              {open.isPending || open.isSuccess ? "Opening…" : "Open session"}
            </Button>
          </>
        }
      />
      <div className="space-y-6">
        {problem ? <Alert title={openFailure(problem.reason)} problem={problem} /> : null}
        {s.status === "active" ? null : (
          <Alert>
            {s.status === "validating" || s.status === "awaiting_expiration_registration"
              ? "The surface is still starting: sessions open once it is active."
              : "Sessions open only on an active surface: deploy the revision again for a new one."}
          </Alert>
        )}
        <SurfaceCard ws={ws} srf={s.id} poll={false} pageLink={false} />
        <SurfaceSessionsCard ws={ws} srf={s.id} />
        {isAdmin ? <SurfaceAccessesCard ws={ws} srf={s.id} /> : null}
      </div>
    </>
  );
}
