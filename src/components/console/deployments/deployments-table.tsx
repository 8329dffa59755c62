"use client";

import Link from "next/link";
import { cn } from "@/components/ui/cn";
import type { TDeployment } from "@/server/domain/deployments/deployments.contract";
import { reasonText } from "./deployment-findings";
import { DeploymentStatusBadge, environmentLabel } from "./deployment-status";
import { formatDateTime } from "../shared/format";
import { ResourceTable, ShortId, type TColumn } from "../shared/resource-table";
import { workspaceHref } from "../shell/nav-config";
import { idLinkClass } from "../shared/id-link";

/**
 * Deployments as rows: id (links to the deployment's page), product,
 * revision, environment and slot, status, reason, created. `productNames`
 * maps product ids to display names; `showProduct` and `showRevision` drop
 * a column that would repeat the page's own subject. Revision and reason
 * hide first when the card is narrow.
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
  const columns: TColumn<TDeployment>[] = [
    {
      key: "id",
      label: "Deployment",
      cell: (d) => <ShortId id={d.id} href={workspaceHref(ws, `/deployments/${d.id}`)} />,
    },
    ...(showProduct
      ? [
          {
            key: "product",
            label: "Product",
            cell: (d: TDeployment) => (
              <Link
                href={workspaceHref(ws, `/products/${d.product_id}`)}
                className={cn(idLinkClass, "font-sans text-sm whitespace-normal")}
                title={d.product_id}
              >
                {productNames?.get(d.product_id) ?? d.product_id}
              </Link>
            ),
          },
        ]
      : []),
    ...(showRevision
      ? [
          {
            key: "revision",
            label: "Revision",
            priority: 3 as const,
            cell: (d: TDeployment) => (
              <ShortId id={d.revision_id} href={workspaceHref(ws, `/revisions/${d.revision_id}`)} />
            ),
          },
        ]
      : []),
    { key: "environment", label: "Environment", cell: (d) => <EnvironmentCell d={d} /> },
    { key: "status", label: "Status", cell: (d) => <DeploymentStatusBadge status={d.status} /> },
    {
      key: "reason",
      label: "Reason",
      priority: 2,
      // The explanation and where to act are on the deployment's page; here a hover hint.
      cell: (d) =>
        d.reason_code ? (
          <code className="font-mono text-xs break-all" title={reasonText(d)}>
            {d.reason_code}
          </code>
        ) : (
          "—"
        ),
    },
    {
      key: "created",
      label: "Created",
      cell: (d) => <span className="whitespace-nowrap">{formatDateTime(d.created_at)}</span>,
    },
  ];
  return <ResourceTable caption={caption} columns={columns} rows={rows} rowKey={(d) => d.id} />;
}

/** "Preview" or "Preview" over "slot eval-…", the slot's long name broken where it must. */
function EnvironmentCell({ d }: { d: TDeployment }) {
  if (d.slot === "default") return <>{environmentLabel(d)}</>;
  return (
    <span className="block min-w-24" title={environmentLabel(d)}>
      <span className="sr-only">{environmentLabel(d)}</span>
      <span aria-hidden="true">
        {environmentLabel({ ...d, slot: "default" })}
        <span className="block font-mono text-xs break-all text-slate-600">slot {d.slot}</span>
      </span>
    </span>
  );
}
