import Link from "next/link";
import { Card, CardContent } from "@/components/ui/card";
import type { TDeployment } from "@/server/domain/deployments/deployments.contract";
import { formatDateTime, formatUnits } from "../shared/format";
import { IdValue, LabelValue, LabelValueList } from "../shared/label-value";
import { workspaceHref } from "../shell/nav-config";
import { idLinkClass } from "../shared/id-link";
import { reasonText } from "./deployment-findings";
import { networkInWords } from "./deployment-header";
import { DeploymentStatusBadge, environmentLabel, inProgress, isolationSummary } from "./deployment-status";

function healthText(d: TDeployment): string {
  if (!d.health) return inProgress(d.status) ? "Not checked yet" : "Never checked";
  const tries = `${d.health.attempts} attempt${d.health.attempts === 1 ? "" : "s"}`;
  // A surface is only created once the app answered its health check.
  if (d.surface_id || d.status === "active") {
    return `Healthy after ${tries}, last answer in ${formatUnits(d.health.latency_ms)} ms (${formatDateTime(d.health.checked_at)})`;
  }
  return `No healthy answer after ${tries} (last tried ${formatDateTime(d.health.checked_at)})`;
}

/** The deployment's facts: ids and links, times, why it ended, its isolation, network and health. */
export function DeploymentDetails({ ws, d }: { ws: string; d: TDeployment }) {
  const why = reasonText(d);
  return (
    <Card>
      <CardContent>
        <LabelValueList columns={3}>
          <LabelValue label="Deployment id" wide>
            <IdValue id={d.id} />
          </LabelValue>
          <LabelValue label="Status">
            <DeploymentStatusBadge status={d.status} />
          </LabelValue>
          <LabelValue label="Environment">{environmentLabel(d)}</LabelValue>
          <LabelValue label="Created">{formatDateTime(d.created_at)}</LabelValue>
          <LabelValue label="Revision">
            <Link href={workspaceHref(ws, `/revisions/${d.revision_id}`)} className={idLinkClass}>
              {d.revision_id}
            </Link>
          </LabelValue>
          <LabelValue label="Product">
            <Link href={workspaceHref(ws, `/products/${d.product_id}`)} className={idLinkClass}>
              {d.product_id}
            </Link>
          </LabelValue>
          <LabelValue label="Started">{formatDateTime(d.started_at, "Not yet")}</LabelValue>
          {d.reason_code ? (
            <LabelValue label="Reason" wide>
              <code className="font-mono text-xs">{d.reason_code}</code>
              {why ? <span className="text-slate-600"> · {why}</span> : null}
            </LabelValue>
          ) : null}
          {d.stopped_at ? <LabelValue label="Ended">{formatDateTime(d.stopped_at)}</LabelValue> : null}
          {d.superseded_deployment_id ? (
            <LabelValue label="Replaced">
              <Link href={workspaceHref(ws, `/deployments/${d.superseded_deployment_id}`)} className={idLinkClass}>
                {d.superseded_deployment_id}
              </Link>
            </LabelValue>
          ) : null}
          {d.pipeline_run_id ? (
            <LabelValue label="Pipeline run">
              <code className="font-mono text-xs break-all">{d.pipeline_run_id}</code>
            </LabelValue>
          ) : null}
          <LabelValue label="Isolation" wide>
            {isolationSummary(d.isolation)}
          </LabelValue>
          <LabelValue label="Network">{networkInWords(d)}</LabelValue>
          <LabelValue label="Health" wide>
            {healthText(d)}
          </LabelValue>
        </LabelValueList>
      </CardContent>
    </Card>
  );
}
