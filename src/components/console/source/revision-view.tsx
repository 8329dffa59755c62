"use client";

import { skipToken, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { useTRPC, wsOnly } from "@/lib/trpc/client";
import { ContractCard } from "./contract-card";
import { DeployButton } from "../deployments/deploy-dialog";
import { DescriptorConfirmForm } from "./descriptor-confirm-form";
import { formatDateTime, formatUnits } from "../shared/format";
import { hasRole, workspaceHref } from "../shell/nav-config";
import { PageFallback } from "../shared/page-query";
import { PageHeader } from "../shared/page-header";
import { PersonById } from "../shared/person";
import { DeploymentsCard } from "../deployments/product-deployments";
import { EvaluationsCard, VersionsCard } from "../releases/revision-evaluations";
import { FixesCard } from "../releases/revision-fixes";
import { ContractStatusBadge, DescriptorStatusBadge } from "./revision-status";
import { idLinkClass } from "../shared/id-link";
import { IdValue, LabelValue, LabelValueList } from "../shared/label-value";
import { FreezeProgress } from "./freeze-progress";
import { stillFreezing } from "./source-freeze";
import { Code, DescriptorFindings, DescriptorSummary, None } from "./revision-descriptor";

/** A revision: its source, the detected runtime descriptor (edit and confirm) and its capability contract. */
export function RevisionView({ ws, rev }: { ws: string; rev: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const revision = useQuery(
    trpc.source.getRevision.queryOptions(
      { ws, rev },
      { refetchInterval: (q) => (q.state.data && stillFreezing(q.state.data) ? 1000 : false) },
    ),
  );
  const productId = revision.data?.product_id;
  const product = useQuery(trpc.source.getProduct.queryOptions(productId ? { ws, prod: productId } : skipToken));
  const role = workspace.data?.role;
  const canConfirm = role === undefined || hasRole(role, "developer");
  const canApprove = hasRole(role, "admin");

  if (!revision.data) return <PageFallback query={revision} title="Revision" what="revision" />;
  const r = revision.data;
  const d = r.descriptor;
  // The server re-checks both (409 descriptor_unconfirmed, contract_rejected or contract_pending) and the role.
  const deployable =
    r.descriptor_status === "confirmed" && r.capability_contract?.status !== "rejected" && hasRole(role, "developer");

  return (
    <>
      <PageHeader
        title="Revision"
        crumbs={[
          { label: product.data?.name ?? r.product_id, href: workspaceHref(ws, `/products/${r.product_id}`) },
          { label: `Revision ${r.id}` },
        ]}
        description={<code className="font-mono text-xs">{r.id}</code>}
        actions={
          <>
            <Link
              href={workspaceHref(ws, `/products/${r.product_id}`)}
              className={buttonVariants({ variant: "secondary", size: "sm" })}
            >
              Open product
            </Link>
            {deployable ? <DeployButton ws={ws} rev={r.id} /> : null}
          </>
        }
      />
      <div className="space-y-6">
        <Card>
          <CardContent>
            <LabelValueList>
              <LabelValue label="Revision id" wide>
                <IdValue id={r.id} />
              </LabelValue>
              <LabelValue label="Descriptor">
                <DescriptorStatusBadge status={r.descriptor_status} />
              </LabelValue>
              <LabelValue label="Capability contract">
                <ContractStatusBadge revision={r} />
              </LabelValue>
              <LabelValue label="Created">{formatDateTime(r.created_at)}</LabelValue>
              <LabelValue label="Commit">
                {r.commit_sha ? <Code>{r.commit_sha}</Code> : <None>not yet known</None>}
              </LabelValue>
              <LabelValue label="Snapshot">
                {r.snapshot ? (
                  <>
                    {formatUnits(r.snapshot.size_bytes)} bytes, sha256 <Code>{r.snapshot.sha256.slice(0, 12)}…</Code>
                  </>
                ) : (
                  <None>not yet taken</None>
                )}
              </LabelValue>
              <LabelValue label="Product">
                <Link href={workspaceHref(ws, `/products/${r.product_id}`)} className={idLinkClass}>
                  {r.product_id}
                </Link>
              </LabelValue>
              {r.confirmed_by ? (
                <>
                  <LabelValue label="Confirmed by">
                    <PersonById ws={ws} id={r.confirmed_by} />
                  </LabelValue>
                  <LabelValue label="Descriptor hash" span={2}>
                    {r.descriptor_hash ? <Code>{r.descriptor_hash}</Code> : <None />}
                  </LabelValue>
                </>
              ) : null}
            </LabelValueList>
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
                How Capstan builds and runs this revision. Each field says whether it was detected from the repository
                or set by a developer.
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
                Correct what was detected wrongly, then confirm. Only the fields you change are sent; confirming makes
                the capability contract ready.
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
