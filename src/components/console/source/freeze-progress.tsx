"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { LoaderCircle } from "lucide-react";
import Link from "next/link";
import { useEffect } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { buttonVariants } from "@/components/ui/button";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TSourceFreeze } from "@/server/domain/source/source.contract";
import { formatUnits, titleCase } from "../shared/format";
import { Loading } from "../shared/page-header";
import { workspaceHref } from "../shell/nav-config";
import { explainRejection, freezeProblem } from "./source-freeze";
import { sourceLabel } from "./source-label";

/* Source freeze progress and outcome, shared by the products page (new product) and the product page (freeze again). */

const bytes = (n: number) => `${formatUnits(n)} bytes`;

type TFreezeStatus = TSourceFreeze["status"];

const FREEZE_TONE: Record<TFreezeStatus, "info" | "success" | "warning" | "danger"> = {
  pending: "info",
  frozen: "success",
  rejected: "warning",
  failed: "danger",
};

export function FreezeStatusBadge({ status }: { status: TFreezeStatus }) {
  return (
    <Badge tone={FREEZE_TONE[status]} className="gap-1">
      {status === "pending" ? (
        <LoaderCircle aria-hidden="true" className="size-3 animate-spin motion-reduce:animate-none" />
      ) : null}
      {titleCase(status)}
    </Badge>
  );
}

function CorrelationLine({ id }: { id: string | undefined }) {
  if (!id) return null;
  return (
    <p className="text-xs opacity-75">
      Correlation id: <code className="font-mono">{id}</code>
    </p>
  );
}

/** Where the problem lies: a path inside the repository (`/source/...`) or a request field. */
function OffendingPath({ path }: { path: string }) {
  if (path.startsWith("/source/")) {
    return (
      <p>
        Offending path in the repository:{" "}
        <code className="font-mono text-xs break-all">{path.slice("/source/".length)}</code>
      </p>
    );
  }
  // `/repo_url` is where URL and ref problems point; the sentence and the repository above already say it.
  if (path === "/source" || path === "/repo_url" || path === "") return null;
  return (
    <p>
      Concerns: <code className="font-mono text-xs break-all">{path.replace(/^\//, "")}</code>
    </p>
  );
}

/** A settled freeze that did not produce a source: what went wrong, in words, then the evidence. */
function FreezeOutcome({ freeze }: { freeze: TSourceFreeze }) {
  const problem = freezeProblem(freeze.problem);
  const path = problem?.errors?.[0]?.path;
  if (freeze.status === "rejected") {
    const sentence = explainRejection(freeze) ?? problem?.detail ?? "The source was rejected.";
    return (
      <Alert tone="warning" title="The source was rejected">
        <p>{sentence}</p>
        {path ? <OffendingPath path={path} /> : null}
        {freeze.rejection ? (
          <p className="text-xs opacity-75">
            Rejection code: <code className="font-mono">{freeze.rejection.code}</code>
          </p>
        ) : null}
        <CorrelationLine id={problem?.correlation_id} />
      </Alert>
    );
  }
  // failed: either an unsupported source (no runtime found) or our own fault.
  const sentence =
    problem?.reason === "unsupported_source"
      ? "The repository was fetched, but Capstan could not find a runtime it can run in it."
      : "The freeze failed on our side. Try again; if it keeps failing, report it with the correlation id.";
  return (
    <Alert tone="danger" title="The freeze failed">
      <p>{sentence}</p>
      {problem ? <p>{problem.detail}</p> : null}
      {path ? <OffendingPath path={path} /> : null}
      <CorrelationLine id={problem?.correlation_id} />
    </Alert>
  );
}

/**
 * Live progress of one source freeze: polls every second while pending, then
 * explains the outcome and links to the new revision. Lists that show the
 * freeze's product or revision are refreshed when it settles.
 */
export function FreezeProgress({
  ws,
  frz,
  showProductLink = true,
}: {
  ws: string;
  frz: string;
  showProductLink?: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const freeze = useQuery(
    trpc.source.getSourceFreeze.queryOptions(
      { ws, frz },
      { refetchInterval: (q) => (!q.state.data || q.state.data.status === "pending" ? 1000 : false), staleTime: 0 },
    ),
  );
  const status = freeze.data?.status;

  useEffect(() => {
    if (!status || status === "pending") return;
    void queryClient.invalidateQueries(trpc.source.listRevisions.pathFilter());
    void queryClient.invalidateQueries(trpc.source.listProducts.pathFilter());
    void queryClient.invalidateQueries(trpc.source.getRevision.pathFilter());
  }, [status, queryClient, trpc]);

  if (freeze.error) return <Alert title="The freeze's progress could not be read" problem={problemOf(freeze.error)} />;
  if (!freeze.data) return <Loading what="source freeze" />;
  const f = freeze.data;

  return (
    <section aria-label="Source freeze" className="space-y-3 rounded-md border border-slate-200 p-4">
      <div className="flex flex-wrap items-center gap-2 text-sm" role="status">
        <span className="font-medium">Source freeze</span>
        <code className="font-mono text-xs text-slate-600">{f.id}</code>
        <FreezeStatusBadge status={f.status} />
        {f.status === "pending" ? <span className="text-slate-600">Fetching and checking the repository…</span> : null}
        {f.status === "frozen" ? <span className="text-slate-600">The source is frozen.</span> : null}
      </div>
      <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
        <div className="min-w-0">
          <dt className="text-slate-600">Repository</dt>
          <dd className="font-mono text-xs break-all">{sourceLabel(f.repo_url)}</dd>
        </div>
        <div>
          <dt className="text-slate-600">Ref</dt>
          <dd className="font-mono text-xs break-all">{f.ref}</dd>
        </div>
        {f.commit_sha ? (
          <div>
            <dt className="text-slate-600">Commit</dt>
            <dd className="font-mono text-xs break-all">{f.commit_sha}</dd>
          </div>
        ) : null}
        {f.snapshot ? (
          <div>
            <dt className="text-slate-600">Snapshot</dt>
            <dd className="text-xs">
              {bytes(f.snapshot.size_bytes)}, sha256{" "}
              <code className="font-mono break-all">{f.snapshot.sha256.slice(0, 12)}…</code>
              {f.replayed ? " (same commit as an earlier freeze)" : ""}
            </dd>
          </div>
        ) : null}
      </dl>
      {f.status === "rejected" || f.status === "failed" ? <FreezeOutcome freeze={f} /> : null}
      <div className="flex flex-wrap gap-2">
        {f.status === "frozen" ? (
          <Link href={workspaceHref(ws, `/revisions/${f.revision.id}`)} className={buttonVariants({ size: "sm" })}>
            Review revision {f.revision.id}
          </Link>
        ) : null}
        {showProductLink && f.status !== "pending" ? (
          <Link
            href={workspaceHref(ws, `/products/${f.product.id}`)}
            className={buttonVariants({ variant: "secondary", size: "sm" })}
          >
            Open product {f.product.id}
          </Link>
        ) : null}
      </div>
    </section>
  );
}
