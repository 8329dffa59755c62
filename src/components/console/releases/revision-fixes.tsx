"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Check, Wrench, X } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { Input } from "@/components/ui/input";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TFix } from "@/server/domain/releases/releases.contract";
import type { TRevision } from "@/server/domain/source/source.contract";
import { workspaceHref } from "../shell/nav-config";
import { idLinkClass } from "../shared/id-link";
import { FixStatusBadge } from "./release-status";

function Diff({ fix }: { fix: TFix }) {
  if (fix.status === "failed") {
    // A generated fix without a usable diff: its findings say why; there is nothing to approve.
    return (
      <ul aria-label={`Why ${fix.id} has no proposal`} className="space-y-1">
        {fix.findings.map((f, i) => (
          <li key={i} className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-sm">
            <p className="font-mono text-xs text-rose-900">{f.code}</p>
            <p className="break-words text-rose-950">{f.message}</p>
          </li>
        ))}
      </ul>
    );
  }
  const text = fix.diff ?? JSON.stringify(fix.descriptor_edits, null, 2);
  return (
    <pre
      aria-label={`Change proposed by ${fix.id}`}
      className="overflow-x-auto rounded-md bg-slate-950 p-3 font-mono text-xs leading-5 text-slate-100"
    >
      {text.split("\n").map((line, i) => (
        <div
          key={i}
          className={
            line.startsWith("+") && !line.startsWith("+++")
              ? "text-emerald-300"
              : line.startsWith("-") && !line.startsWith("---")
                ? "text-rose-300"
                : undefined
          }
        >
          {line || " "}
        </div>
      ))}
    </pre>
  );
}

/**
 * Proposed fixes of a revision, each a diff (or descriptor edit) with approve / reject; and
 * "Propose fix" for the revision's own error findings (detection, contract rejection).
 */
export function FixesCard({ ws, revision, canDecide }: { ws: string; revision: TRevision; canDecide: boolean }) {
  const rev = revision.id;
  const productId = revision.product_id;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [notes, setNotes] = useState<Record<string, string>>({});
  const fixes = useQuery(trpc.releases.fixes.queryOptions({ ws, prod: productId, rev, limit: 20, order: "desc" }));
  const refresh = () => queryClient.invalidateQueries(trpc.releases.fixes.pathFilter());
  const approve = useMutation(trpc.releases.approveFix.mutationOptions({ onSuccess: refresh }));
  const reject = useMutation(trpc.releases.rejectFix.mutationOptions({ onSuccess: refresh }));
  const propose = useMutation(trpc.releases.requestFix.mutationOptions({ onSuccess: refresh }));
  const items = fixes.data?.items ?? [];
  const proposable = [
    ...revision.findings.filter((f) => f.severity === "error").map((f) => ({ code: f.code, message: f.message })),
    ...(revision.capability_contract?.status === "rejected"
      ? [
          {
            code: "contract_rejected",
            message: `The capability contract was rejected (${revision.capability_contract.reason}).`,
          },
        ]
      : []),
  ];
  if (!items.length && !(canDecide && proposable.length)) return null;
  const failure = problemOf(approve.error ?? reject.error ?? propose.error);
  return (
    <SectionCard
      title="Fixes"
      description={
        <>
          Changes proposed for this revision&apos;s findings. Approving one freezes a new revision from the patched
          source; this one stays as it is.
        </>
      }
      contentClassName="space-y-5"
    >
      {failure ? <Alert problem={failure} /> : null}
      {canDecide && proposable.length ? (
        <ul aria-label="Findings of this revision" className="space-y-2">
          {proposable.map((f) => (
            <li key={f.code} className="flex flex-wrap items-center justify-between gap-2 text-sm">
              <span>
                <code className="font-mono text-xs">{f.code}</code> {f.message}
              </span>
              <Button
                size="sm"
                variant="secondary"
                disabled={propose.isPending}
                onClick={() => propose.mutate({ ws, prod: productId, rev, finding_code: f.code })}
              >
                <Wrench aria-hidden="true" />
                Propose fix
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      {items.map((f) => (
        <section key={f.id} aria-label={`Fix ${f.id}`} className="space-y-2">
          <p className="flex flex-wrap items-center gap-2 text-sm">
            <FixStatusBadge status={f.status} />
            {f.rule === "ai_generated" ? (
              <Badge tone="warning">AI-generated: review the diff</Badge>
            ) : (
              <code className="font-mono text-xs">{f.rule}</code>
            )}
            <span>{f.summary}</span>
          </p>
          {f.capability_invocation_id ? (
            <p className="text-sm text-slate-600">
              Model call (charged to this workspace):{" "}
              <Link className={idLinkClass} href={workspaceHref(ws, `/invocations/${f.capability_invocation_id}`)}>
                {f.capability_invocation_id}
              </Link>
            </p>
          ) : null}
          <Diff fix={f} />
          {f.status === "proposed" && canDecide ? (
            <div className="flex flex-wrap items-center gap-2">
              <Button
                size="sm"
                onClick={() => approve.mutate({ ws, prod: productId, rev, fix: f.id })}
                disabled={approve.isPending}
              >
                <Check aria-hidden="true" />
                Approve fix
              </Button>
              <Input
                aria-label="Why reject"
                placeholder="Why reject?"
                className="h-8 w-56"
                value={notes[f.id] ?? ""}
                onChange={(e) => setNotes({ ...notes, [f.id]: e.target.value })}
              />
              <Button
                size="sm"
                variant="secondary"
                disabled={!notes[f.id]?.trim() || reject.isPending}
                onClick={() => reject.mutate({ ws, prod: productId, rev, fix: f.id, note: notes[f.id]!.trim() })}
              >
                <X aria-hidden="true" />
                Reject fix
              </Button>
            </div>
          ) : null}
          {f.new_revision_id ? (
            <p className="text-sm">
              New revision:{" "}
              <Link className={idLinkClass} href={workspaceHref(ws, `/revisions/${f.new_revision_id}`)}>
                {f.new_revision_id}
              </Link>
            </p>
          ) : null}
          {f.decision?.decision === "reject" ? (
            <p className="text-sm text-slate-600">Rejected: {f.decision.note}</p>
          ) : null}
        </section>
      ))}
    </SectionCard>
  );
}
