"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Rocket, Undo2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TRelease } from "@/server/domain/releases/releases.contract";
import { ConfirmDialog } from "../shared/confirm-dialog";
import { workspaceHref } from "../shell/nav-config";

/**
 * Promote (a release live on staging -> production) and Roll back (the
 * production release live before this one goes live again), owner/admin
 * only, each behind a confirmation that says what changes. The server
 * re-checks everything and answers a 409 naming why when it refuses.
 */
export function ProductionActions({ ws, release: r, canAct }: { ws: string; release: TRelease; canAct: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<"promote" | "rollback" | null>(null);
  const [approveWidening, setApproveWidening] = useState(false);
  const promotable = canAct && r.status === "live" && r.channel === "staged";
  const rollbackable = canAct && r.status === "live" && r.channel === "production";
  const live = useQuery(
    trpc.releases.releases.queryOptions(
      { ws, product_id: r.product_id, status: "live", limit: 10 },
      { enabled: promotable && open === "promote" },
    ),
  );
  const inProduction = live.data?.items.find((x) => x.channel === "production" && x.id !== r.id);
  const done = (next: { release: TRelease }) => {
    setOpen(null);
    void queryClient.invalidateQueries(trpc.releases.pathFilter());
    if (next.release.id !== r.id) router.push(workspaceHref(ws, `/releases/${next.release.id}`));
  };
  const promote = useMutation(trpc.releases.promoteRelease.mutationOptions({ onSuccess: done }));
  const rollback = useMutation(trpc.releases.rollbackProduction.mutationOptions({ onSuccess: done }));
  const needsApproval = problemOf(promote.error)?.reason === "approval_required";
  if (!promotable && !rollbackable) return null;

  return (
    <>
      {promotable ? (
        <Button size="sm" onClick={() => setOpen("promote")}>
          <Rocket aria-hidden="true" />
          Promote to production
        </Button>
      ) : null}
      {rollbackable ? (
        <Button size="sm" variant="secondary" onClick={() => setOpen("rollback")}>
          <Undo2 aria-hidden="true" />
          Roll back
        </Button>
      ) : null}
      <ConfirmDialog
        open={open === "promote"}
        title="Promote to production?"
        description={
          `A production deployment of this release's version starts now. Once it is active, this release becomes production's live release` +
          (inProduction
            ? ` and replaces release ${inProduction.id}, which is retired.`
            : "; nothing is live in production yet.") +
          " Production serves invocations once the product has a verified production domain. Staging keeps running."
        }
        confirmLabel="Promote"
        pendingLabel="Promoting…"
        variant="primary"
        pending={promote.isPending}
        error={promote.error}
        onConfirm={() => promote.mutate({ ws, rel: r.id, ...(approveWidening ? { approve_widening: true } : {}) })}
        onClose={() => setOpen(null)}
      >
        {needsApproval ? (
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={approveWidening} onChange={(e) => setApproveWidening(e.target.checked)} />
            Approve the wider contract for production
          </label>
        ) : null}
      </ConfirmDialog>
      <ConfirmDialog
        open={open === "rollback"}
        title="Roll back production?"
        description="The production release that was live before this one is deployed again as it was (no new evaluation) and goes live once its deployment is active; this release is then retired. Until then this release keeps serving."
        confirmLabel="Roll back"
        pendingLabel="Rolling back…"
        pending={rollback.isPending}
        error={rollback.error}
        onConfirm={() => rollback.mutate({ ws, prod: r.product_id })}
        onClose={() => setOpen(null)}
      />
    </>
  );
}
