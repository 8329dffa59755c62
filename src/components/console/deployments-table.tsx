"use client";

import Link from "next/link";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { TDeployment } from "@/server/domain/deployments/deployments.contract";
import { reasonText } from "./deployment-findings";
import { DeploymentStatusBadge, environmentLabel } from "./deployment-status";
import { formatDateTime } from "./format";
import { workspaceHref } from "./nav-config";
import { idLinkClass } from "./products-view";

/**
 * Deployments as rows: id (links to the deployment's page), product,
 * revision, environment and slot, status, reason, created. `productNames`
 * maps product ids to display names; `showProduct` and `showRevision` drop
 * a column that would repeat the page's own subject.
 */
export function DeploymentsTable({
  ws,
  rows,
  caption,
  productNames,
  showProduct = true,
  showRevision = true,
}: {
  ws: string;
  rows: TDeployment[];
  caption: string;
  productNames?: ReadonlyMap<string, string>;
  showProduct?: boolean;
  showRevision?: boolean;
}) {
  return (
    <Table>
      <TableCaption>{caption}</TableCaption>
      <TableHeader>
        <TableRow>
          <TableHead>Deployment</TableHead>
          {showProduct ? <TableHead>Product</TableHead> : null}
          {showRevision ? <TableHead>Revision</TableHead> : null}
          <TableHead>Environment</TableHead>
          <TableHead>Status</TableHead>
          <TableHead>Reason</TableHead>
          <TableHead>Created</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((d) => (
          <TableRow key={d.id}>
            <TableCell>
              <Link href={workspaceHref(ws, `/deployments/${d.id}`)} className={idLinkClass}>
                {d.id}
              </Link>
            </TableCell>
            {showProduct ? (
              <TableCell>
                <Link href={workspaceHref(ws, `/products/${d.product_id}`)} className={idLinkClass} title={d.product_id}>
                  {productNames?.get(d.product_id) ?? d.product_id}
                </Link>
              </TableCell>
            ) : null}
            {showRevision ? (
              <TableCell>
                <Link href={workspaceHref(ws, `/revisions/${d.revision_id}`)} className={idLinkClass}>
                  {d.revision_id}
                </Link>
              </TableCell>
            ) : null}
            <TableCell className="whitespace-nowrap">{environmentLabel(d)}</TableCell>
            <TableCell>
              <DeploymentStatusBadge status={d.status} />
            </TableCell>
            <TableCell>
              {/* The explanation and where to act are on the deployment's page; here a hover hint. */}
              {d.reason_code ? (
                <code className="font-mono text-xs" title={reasonText(d)}>
                  {d.reason_code}
                </code>
              ) : (
                "—"
              )}
            </TableCell>
            <TableCell className="whitespace-nowrap">{formatDateTime(d.created_at)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
