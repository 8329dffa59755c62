"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { useTRPC } from "@/lib/trpc/client";
import { workspaceHref } from "../shell/nav-config";

/**
 * The workspace's dunning standing in words (docs/decisions.md "Billing:
 * collection and dunning"), shown on the Billing page and where an owner
 * deploys: nothing when in good standing.
 */
export function StandingBanner({ ws, where }: { ws: string; where: "billing" | "deploy" }) {
  const trpc = useTRPC();
  const standing = useQuery(trpc.billing.collection.standing.queryOptions({ ws }));
  const s = standing.data;
  if (!s || s.standing === "good") return null;
  const tone = s.standing === "past_due" ? "warning" : "danger";
  const next = s.dunning.find((d) => d.status === "active")?.next_attempt_at;
  return (
    <Alert
      tone={tone}
      title={
        { past_due: "Payment past due", restricted: "Workspace restricted", suspended: "Workspace suspended" }[
          s.standing
        ]
      }
    >
      <p>{s.description}</p>
      {next ? <p>The next collection attempt is on {next.slice(0, 10)}.</p> : null}
      {where === "deploy" && s.standing !== "past_due" ? (
        <p>New deployments are refused until the invoice is paid.</p>
      ) : null}
      {s.invoice_id ? (
        <p>
          <Link className="font-medium underline" href={workspaceHref(ws, `/billing/invoices/${s.invoice_id}`)}>
            Pay the invoice
          </Link>
        </p>
      ) : null}
    </Alert>
  );
}
