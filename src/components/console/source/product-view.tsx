"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { useTRPC, wsOnly } from "@/lib/trpc/client";
import { DeployButton } from "../deployments/deploy-dialog";
import { ProductDeployments } from "../deployments/product-deployments";
import { PushHookCard } from "../deployments/push-hook-card";
import { formatDateTime } from "../shared/format";
import { idLinkClass } from "../shared/id-link";
import { IdValue, LabelValue, LabelValueList } from "../shared/label-value";
import { PageHeader } from "../shared/page-header";
import { PageFallback } from "../shared/page-query";
import { RelativeTime } from "../shared/relative-time";
import { RenameButton } from "../shared/rename-dialog";
import { hasRole, workspaceHref } from "../shell/nav-config";
import { FreezeAgainForm } from "./freeze-again-form";
import { ProductRevisions } from "./product-revisions";
import { ProductStatusBadge } from "./products-view";
import { sourceLabel } from "./source-label";

/** One product: where it comes from, what is live per environment, its deployments and revisions, and a form to freeze its repository again. */
export function ProductView({ ws, prod }: { ws: string; prod: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const product = useQuery(trpc.source.getProduct.queryOptions({ ws, prod }));
  const queryClient = useQueryClient();
  const rename = useMutation(
    trpc.source.renameProduct.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.source.getProduct.queryKey({ ws, prod }), data);
        void queryClient.invalidateQueries(trpc.source.listProducts.pathFilter());
      },
    }),
  );
  const role = workspace.data?.role;
  const canFreeze = role === undefined || hasRole(role, "developer");

  if (!product.data) return <PageFallback query={product} title="Product" what="product" />;
  const p = product.data;

  return (
    <>
      <PageHeader
        title={p.name}
        crumbs={[{ label: p.name }]}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <ProductStatusBadge status={p.status} />
            <span>
              Product from <span className="font-mono text-xs break-all">{sourceLabel(p.repo_url)}</span>; last activity{" "}
              <RelativeTime iso={p.last_activity_at} />
            </span>
          </span>
        }
        actions={
          <>
            {canFreeze ? <DeployButton ws={ws} prod={prod} /> : null}
            <RenameButton
              what="product"
              current={p.name}
              disabled={!canFreeze}
              mutation={{ ...rename, mutate: (name, opts) => rename.mutate({ ws, prod, name }, opts) }}
            />
            <Link
              href={workspaceHref(ws, "/products")}
              className={buttonVariants({ variant: "secondary", size: "sm" })}
            >
              All products
            </Link>
          </>
        }
      />
      <div className="space-y-6">
        <Card>
          <CardContent>
            <LabelValueList columns={2}>
              <LabelValue label="Product id" wide columns={2}>
                <IdValue id={p.id} />
              </LabelValue>
              <LabelValue label="Repository URL">
                <span className="font-mono text-xs break-all">{sourceLabel(p.repo_url)}</span>
              </LabelValue>
              <LabelValue label="Ref at creation">
                <span className="font-mono text-xs break-all">{p.ref}</span>
              </LabelValue>
              <LabelValue label="Type">
                <Badge tone="info">{p.type}</Badge>
              </LabelValue>
              <LabelValue label="Created">{formatDateTime(p.created_at)}</LabelValue>
              <LabelValue label="Input revision" wide columns={2}>
                <Link href={workspaceHref(ws, `/revisions/${p.input_revision_id}`)} className={idLinkClass}>
                  {p.input_revision_id}
                </Link>
              </LabelValue>
            </LabelValueList>
          </CardContent>
        </Card>
        {role && !canFreeze ? (
          <Alert>Only developers, admins and owners can freeze the repository again. You are {role}.</Alert>
        ) : null}
        <ProductDeployments ws={ws} prod={prod} canOperate={hasRole(role, "developer")} />
        <PushHookCard ws={ws} prod={prod} canManage={hasRole(role, "admin")} />
        <FreezeAgainForm ws={ws} prod={prod} defaultRef={p.ref} canFreeze={canFreeze} />
        <ProductRevisions ws={ws} prod={prod} />
      </div>
    </>
  );
}
