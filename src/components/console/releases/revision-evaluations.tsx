"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ClipboardCheck, Sparkles, Wrench } from "lucide-react";
import { useEffect } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TEvaluation } from "@/server/domain/releases/releases.contract";
import { formatDateTime } from "../shared/format";
import { CheckStatusBadge, EvaluationStatusBadge, evaluationRunning } from "./release-status";
import { ReleaseWizardButton } from "./release-wizard";

const CHECK_LABEL: Record<TEvaluation["checks"][number]["name"], string> = {
  descriptor: "Descriptor confirmed",
  contract: "Contract ready",
  deployment: "Preview deployment healthy",
  surface: "Surface reachable",
  smoke: "Smoke requests",
  logs: "Log free of crashes",
};

/** Evaluate button, the latest evaluation's checks and findings (live while it runs), each finding with "Propose fix". */
export function EvaluationsCard({
  ws,
  rev,
  productId,
  canRun,
}: {
  ws: string;
  rev: string;
  productId: string;
  canRun: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(
    trpc.releases.evaluations.queryOptions(
      { ws, rev, limit: 5, order: "desc" },
      {
        refetchInterval: (q) => (q.state.data?.items.some((e) => evaluationRunning(e.status)) ? 1000 : false),
      },
    ),
  );
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.releases.evaluations.pathFilter()),
      queryClient.invalidateQueries(trpc.releases.revisionVersions.pathFilter()),
      queryClient.invalidateQueries(trpc.releases.fixes.pathFilter()),
    ]);
  const evaluate = useMutation(trpc.releases.evaluate.mutationOptions({ onSuccess: refresh }));
  const propose = useMutation(trpc.releases.requestFix.mutationOptions({ onSuccess: refresh }));
  const askAi = useMutation(trpc.releases.requestFix.mutationOptions({ onSuccess: refresh }));
  const latest = list.data?.items[0];
  // A pass cuts (or confirms) the version: the versions card reads it again.
  const passedVersion = latest?.status === "passed" ? latest.version_id : null;
  useEffect(() => {
    if (passedVersion) void queryClient.invalidateQueries(trpc.releases.revisionVersions.pathFilter());
  }, [passedVersion, queryClient, trpc]);

  return (
    <Card>
      <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-3">
        <div className="space-y-1">
          <CardTitle>Evaluations</CardTitle>
          <CardDescription>
            Deploys the revision to preview, sends GET requests to its health path and to / through a session, and reads
            its log. A pass cuts a version.
          </CardDescription>
        </div>
        {canRun ? (
          <Button
            size="sm"
            onClick={() => evaluate.mutate({ ws, rev })}
            disabled={evaluate.isPending || (latest ? evaluationRunning(latest.status) : false)}
          >
            <ClipboardCheck aria-hidden="true" />
            {latest && evaluationRunning(latest.status) ? "Evaluating…" : latest ? "Evaluate again" : "Evaluate"}
          </Button>
        ) : null}
      </CardHeader>
      <CardContent className="space-y-4">
        {evaluate.error ? <Alert problem={problemOf(evaluate.error)} /> : null}
        {propose.error ? <Alert title="No fix proposed" problem={problemOf(propose.error)} /> : null}
        {askAi.error ? <Alert title="No AI fix asked" problem={problemOf(askAi.error)} /> : null}
        {askAi.data ? (
          <p role="status" className="text-sm text-slate-700">
            {askAi.data.status === "proposed"
              ? "The model proposed a patch: review it under Fixes."
              : "The model gave no usable patch: see Fixes for why."}
          </p>
        ) : null}
        {!latest ? (
          <p className="text-sm text-slate-600">{list.isLoading ? "Loading…" : "Not evaluated yet."}</p>
        ) : (
          <section aria-label="Latest evaluation" className="space-y-3">
            <p className="flex flex-wrap items-center gap-2 text-sm">
              <EvaluationStatusBadge status={latest.status} />
              <code className="font-mono text-xs">{latest.id}</code>
              <span className="text-slate-600">started {formatDateTime(latest.created_at)}</span>
            </p>
            <ol aria-label="Checks" className="grid gap-2 sm:grid-cols-2 lg:grid-cols-3">
              {latest.checks.map((c) => (
                <li
                  key={c.name}
                  className="flex items-center justify-between gap-2 rounded-md border border-slate-200 px-3 py-2 text-sm"
                >
                  <span>{CHECK_LABEL[c.name]}</span>
                  <CheckStatusBadge status={c.status} />
                </li>
              ))}
            </ol>
            {latest.findings.length ? (
              <ul aria-label="Findings" className="space-y-2">
                {latest.findings.map((f) => (
                  <li
                    key={f.id}
                    className="flex flex-wrap items-start justify-between gap-2 rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-sm"
                  >
                    <div className="min-w-0 space-y-0.5">
                      <p className="font-mono text-xs text-rose-900">
                        {f.check} · {f.code}
                      </p>
                      <p className="break-words text-rose-950">{f.message}</p>
                    </div>
                    {canRun ? (
                      <div className="flex flex-wrap gap-2">
                        <Button
                          size="sm"
                          variant="secondary"
                          disabled={propose.isPending}
                          onClick={() => propose.mutate({ ws, prod: productId, rev, finding_id: f.id })}
                        >
                          <Wrench aria-hidden="true" />
                          Propose fix
                        </Button>
                        {latest.status === "failed" ? (
                          <Button
                            size="sm"
                            variant="secondary"
                            disabled={askAi.isPending}
                            aria-label={`Ask AI to fix ${f.code}`}
                            onClick={() =>
                              askAi.mutate({ ws, prod: productId, rev, finding_id: f.id, generator: "ai" })
                            }
                          >
                            <Sparkles aria-hidden="true" />
                            {askAi.isPending ? "Asking the model…" : "Ask AI"}
                          </Button>
                        ) : null}
                      </div>
                    ) : null}
                  </li>
                ))}
              </ul>
            ) : null}
          </section>
        )}
      </CardContent>
    </Card>
  );
}

/** The version this revision's passing evaluation cut, with the release wizard. */
export function VersionsCard({
  ws,
  rev,
  productId,
  canRelease,
}: {
  ws: string;
  rev: string;
  productId: string;
  canRelease: boolean;
}) {
  const trpc = useTRPC();
  const versions = useQuery(trpc.releases.revisionVersions.queryOptions({ ws, rev, limit: 10, order: "desc" }));
  const items = versions.data?.items ?? [];
  return (
    <Card>
      <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-3">
        <div className="space-y-1">
          <CardTitle>Versions</CardTitle>
          <CardDescription>Immutable and numbered per product; only a passing evaluation cuts one.</CardDescription>
        </div>
        {canRelease && items.some((v) => v.qualified) ? (
          <ReleaseWizardButton ws={ws} productId={productId} versionId={items[0]!.id} />
        ) : null}
      </CardHeader>
      <CardContent>
        {items.length ? (
          <ul aria-label="Versions" className="space-y-2 text-sm">
            {items.map((v) => (
              <li key={v.id} className="flex flex-wrap items-center gap-3">
                <span className="font-semibold">{v.label}</span>
                <code className="font-mono text-xs">{v.id}</code>
                <span className={v.qualified ? "text-emerald-700" : "text-rose-700"}>
                  {v.qualified ? "qualified" : "not qualified (a later evaluation failed)"}
                </span>
                <span className="text-slate-600">cut {formatDateTime(v.created_at)}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600">No version yet: evaluate the revision.</p>
        )}
      </CardContent>
    </Card>
  );
}
