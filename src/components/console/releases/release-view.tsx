"use client";

import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Check, Rocket, X } from "lucide-react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import { hasRole } from "../shell/nav-config";
import { PageHeader } from "../shared/page-header";
import { PageQuery } from "../shared/page-query";
import { ProductionActions } from "./production-actions";
import { ReleaseFacts, ReleaseTimeline } from "./release-facts";

/** A release: its fields, its status timeline, approve/reject (owner, admin), deploy to staging, promote to production and roll back (owner, admin). */
export function ReleaseView({ ws, rel }: { ws: string; rel: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const release = useQuery(
    trpc.releases.release.queryOptions(
      { ws, rel },
      {
        refetchInterval: (q) => (q.state.data && !["retired", "blocked"].includes(q.state.data.status) ? 1500 : false),
      },
    ),
  );
  const refresh = () => queryClient.invalidateQueries(trpc.releases.release.pathFilter());
  const approve = useMutation(trpc.releases.approveRelease.mutationOptions({ onSuccess: refresh }));
  const reject = useMutation(trpc.releases.rejectRelease.mutationOptions({ onSuccess: refresh }));
  const deploy = useMutation(trpc.releases.deployRelease.mutationOptions({ onSuccess: refresh }));
  const version = useQuery(
    trpc.releases.version.queryOptions(release.data ? { ws, ver: release.data.version_id } : skipToken),
  );
  const role = workspace.data?.role;
  const failure = problemOf(approve.error ?? reject.error ?? deploy.error);

  return (
    <PageQuery query={release} title="Release" what="release">
      {(r) => (
        <>
          <PageHeader
            title={version.data ? `Release ${version.data.label}` : "Release"}
            crumbs={[{ label: version.data ? `Release ${version.data.label}` : `Release ${r.id}` }]}
            description={<code className="font-mono text-xs">{r.id}</code>}
            actions={
              <>
                {r.status === "pending_approval" && hasRole(role, "admin") ? (
                  <>
                    <Button
                      size="sm"
                      variant="secondary"
                      onClick={() => reject.mutate({ ws, rel: r.id })}
                      disabled={reject.isPending}
                    >
                      <X aria-hidden="true" />
                      Reject
                    </Button>
                    <Button size="sm" onClick={() => approve.mutate({ ws, rel: r.id })} disabled={approve.isPending}>
                      <Check aria-hidden="true" />
                      Approve
                    </Button>
                  </>
                ) : null}
                <ProductionActions ws={ws} release={r} canAct={hasRole(role, "admin")} />
                {r.status === "draft" && hasRole(role, "developer") ? (
                  <Button
                    size="sm"
                    onClick={() => deploy.mutate({ ws, rel: r.id, environment_type: "staging" })}
                    disabled={deploy.isPending}
                  >
                    <Rocket aria-hidden="true" />
                    Deploy to staging
                  </Button>
                ) : null}
              </>
            }
          />
          <div className="space-y-6">
            {failure ? <Alert problem={failure} /> : null}
            {r.status === "pending_approval" ? (
              <Alert tone="warning" title="Waiting for an owner or admin">
                {r.widening?.why
                  ? `The version's contract widens the live release's: ${r.widening.why}.`
                  : "Its contract needs approval."}
              </Alert>
            ) : null}
            <ReleaseFacts ws={ws} r={r} />
            <ReleaseTimeline r={r} />
          </div>
        </>
      )}
    </PageQuery>
  );
}
