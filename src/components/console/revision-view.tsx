"use client";

import { skipToken, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import { ContractCard } from "./contract-card";
import { DeployButton } from "./deploy-dialog";
import { DescriptorConfirmForm } from "./descriptor-confirm-form";
import { formatDateTime, formatUnits } from "./format";
import { hasRole, workspaceHref } from "./nav-config";
import { Loading, PageHeader } from "./page-header";
import { PersonById } from "./person";
import { DeploymentsCard } from "./product-deployments";
import { EvaluationsCard, VersionsCard } from "./revision-evaluations";
import { FixesCard } from "./revision-fixes";
import { ContractStatusBadge, DescriptorStatusBadge } from "./product-view";
import { FreezeProgress, idLinkClass, stillFreezing } from "./products-view";
import { Code, DescriptorFindings, DescriptorSummary, None } from "./revision-descriptor";

/** A revision: its source, the detected runtime descriptor (edit and confirm) and its capability contract. */
export function RevisionView({ ws, rev }: { ws: string; rev: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const revision = useQuery(
    trpc.source.getRevision.queryOptions({ ws, rev }, { refetchInterval: (q) => (q.state.data && stillFreezing(q.state.data) ? 1000 : false) }),
  );
  const productId = revision.data?.product_id;
  const product = useQuery(trpc.source.getProduct.queryOptions(productId ? { ws, prod: productId } : skipToken));
  const role = workspace.data?.role;
  const canConfirm = role === undefined || hasRole(role, "developer");
  const canApprove = hasRole(role, "admin");

  if (revision.error) {
    return (
      <>
        <PageHeader title="Revision" />
        <Alert problem={problemOf(revision.error)} />
      </>
    );
  }
  if (!revision.data) return <Loading what="revision" />;
  const r = revision.data;
  const d = r.descriptor;
  // The server re-checks both (409 descriptor_unconfirmed, contract_rejected or contract_pending) and the role.
  const deployable = r.descriptor_status === "confirmed" && r.capability_contract?.status !== "rejected" && hasRole(role, "developer");

  return (
    <>
      <PageHeader
        title="Revision"
        crumbs={[{ label: product.data?.name ?? r.product_id, href: workspaceHref(ws, `/products/${r.product_id}`) }, { label: `Revision ${r.id}` }]}
        description={<code className="font-mono text-xs">{r.id}</code>}
        actions={
          <>
            <Link href={workspaceHref(ws, `/products/${r.product_id}`)} className={buttonVariants({ variant: "secondary", size: "sm" })}>
              Open product
            </Link>
            {deployable ? <DeployButton ws={ws} rev={r.id} /> : null}
          </>
        }
      />
      <div className="space-y-6">
        <Card>
          <CardContent>
            <dl className="grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-3">
              <div className="space-y-1 sm:col-span-2 lg:col-span-3">
                <dt className="text-slate-600">Revision id</dt>
                <dd className="flex flex-wrap items-center gap-2">
                  <code className="font-mono break-all">{r.id}</code>
                  <CopyButton value={r.id} size="sm" label="Copy id" />
                </dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Descriptor</dt>
                <dd>
                  <DescriptorStatusBadge status={r.descriptor_status} />
                </dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Capability contract</dt>
                <dd>
                  <ContractStatusBadge revision={r} />
                </dd>
              </div>
              <div className="space-y-1">
                <dt className="text-slate-600">Created</dt>
                <dd>{formatDateTime(r.created_at)}</dd>
              </div>
              <div className="min-w-0 space-y-1">
                <dt className="text-slate-600">Commit</dt>
                <dd>{r.commit_sha ? <Code>{r.commit_sha}</Code> : <None>not yet known</None>}</dd>
              </div>
              <div className="min-w-0 space-y-1">
                <dt className="text-slate-600">Snapshot</dt>
                <dd>
                  {r.snapshot ? (
                    <>
                      {formatUnits(r.snapshot.size_bytes)} bytes, sha256 <Code>{r.snapshot.sha256.slice(0, 12)}…</Code>
                    </>
                  ) : (
                    <None>not yet taken</None>
                  )}
                </dd>
              </div>
              <div className="min-w-0 space-y-1">
                <dt className="text-slate-600">Product</dt>
                <dd>
                  <Link href={workspaceHref(ws, `/products/${r.product_id}`)} className={idLinkClass}>
                    {r.product_id}
                  </Link>
                </dd>
              </div>
              {r.confirmed_by ? (
                <>
                  <div className="min-w-0 space-y-1">
                    <dt className="text-slate-600">Confirmed by</dt>
                    <dd>
                      <PersonById ws={ws} id={r.confirmed_by} />
                    </dd>
                  </div>
                  <div className="min-w-0 space-y-1 sm:col-span-2">
                    <dt className="text-slate-600">Descriptor hash</dt>
                    <dd>{r.descriptor_hash ? <Code>{r.descriptor_hash}</Code> : <None />}</dd>
                  </div>
                </>
              ) : null}
            </dl>
          </CardContent>
        </Card>

        {r.descriptor_status === "pending" || r.descriptor_status === "unavailable" ? (
          <FreezeProgress ws={ws} frz={r.source_freeze_id} showProductLink={false} />
        ) : null}

        {d ? (
          <Card>
            <CardHeader>
              <CardTitle>Runtime descriptor</CardTitle>
              <CardDescription>
                How Capstan builds and runs this revision. Each field says whether it was detected from the repository or set by a developer.
              </CardDescription>
            </CardHeader>
            <CardContent className="space-y-5">
              <DescriptorSummary descriptor={d} />
              <DescriptorFindings findings={r.findings} />
            </CardContent>
          </Card>
        ) : null}

        {d && r.descriptor_status === "detected" ? (
          <Card>
            <CardHeader>
              <CardTitle>Review and confirm</CardTitle>
              <CardDescription>
                Correct what was detected wrongly, then confirm. Only the fields you change are sent; confirming makes the capability contract
                ready.
              </CardDescription>
            </CardHeader>
            <CardContent className="space-y-3">
              {canConfirm ? (
                <DescriptorConfirmForm key={r.id} ws={ws} revision={r} descriptor={d} canApprove={canApprove} />
              ) : (
                <Alert>Only developers, admins and owners can confirm the descriptor. You are {role}.</Alert>
              )}
            </CardContent>
          </Card>
        ) : null}
        {r.descriptor_status === "confirmed" ? (
          <Alert tone="success" title="Descriptor confirmed">
            Confirmed{r.confirmed_by ? ` by ${r.confirmed_by}` : ""} on {formatDateTime(r.updated_at)}.
          </Alert>
        ) : null}

        <ContractCard ws={ws} revision={r} />

        {r.descriptor_status === "confirmed" || r.descriptor_status === "detected" ? (
          <>
            <EvaluationsCard ws={ws} rev={r.id} productId={r.product_id} canRun={hasRole(role, "developer")} />
            <VersionsCard ws={ws} rev={r.id} productId={r.product_id} canRelease={hasRole(role, "developer")} />
            <FixesCard ws={ws} revision={r} canDecide={hasRole(role, "developer")} />
          </>
        ) : null}

        {r.descriptor_status === "confirmed" ? (
          <DeploymentsCard
            ws={ws}
            filter={{ revision_id: r.id }}
            title="Deployments of this revision"
            description="Newest first. Deploy starts another one; it replaces what is live in the same environment and slot once healthy."
          />
        ) : null}
      </div>
    </>
  );
}
