import Link from "next/link";
import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { cn, focusRing } from "@/components/ui/cn";
import type { TDeployment } from "@/server/domain/deployments/deployments.contract";
import { workspaceHref } from "../shell/nav-config";

type TFinding = TDeployment["findings"][number];
type TWhere = "revision" | "product" | "operator" | "deploy_again" | "logs";
type TAdvice = { text: string; where: TWhere };

/**
 * What to do about each finding or failure code of a deployment, and where:
 * the revision (its descriptor), the product (freeze a new revision), the
 * operator (the host), this page's logs, or simply deploying again.
 */
const ADVICE: Record<string, TAdvice> = {
  build_plan_missing: {
    text: "Freeze a revision the detector can plan, or confirm a descriptor that has a build plan.",
    where: "product",
  },
  command_invalid: {
    text: "A command of the build plan cannot be run as written: freeze a new revision and edit the build plan when confirming its descriptor.",
    where: "product",
  },
  workdir_invalid: {
    text: "The working directory must be inside the repository: freeze a new revision and fix it when confirming the descriptor.",
    where: "product",
  },
  snapshot_missing: {
    text: "The revision's source snapshot is gone: freeze a new revision and deploy that.",
    where: "product",
  },
  snapshot_unpack_failed: {
    text: "The revision's source snapshot could not be unpacked: freeze a new revision and deploy that.",
    where: "product",
  },
  install_failed: {
    text: "Fix the dependencies (package.json and its lockfile) so the install step passes, and freeze a new revision.",
    where: "product",
  },
  build_failed: { text: "Fix the build script and freeze a new revision.", where: "product" },
  start_failed: {
    text: "The start command could not be launched: check it in the descriptor, or ask the operator if it persists.",
    where: "revision",
  },
  start_exited: {
    text: "The app exited as it started: read the run log's last lines, fix the app and freeze a new revision.",
    where: "logs",
  },
  health_check_failed: {
    text: "Check the app listens on $PORT and answers the health path with 2xx or 3xx; edit the health path when confirming the descriptor of a new revision.",
    where: "revision",
  },
  surface_unreachable: {
    text: "The app was healthy but its surface route failed: deploy again, and ask the operator if it persists.",
    where: "deploy_again",
  },
  process_exited: {
    text: "The app's process ended while it was live: read its last output, fix the app and freeze a new revision.",
    where: "product",
  },
  runner_error: {
    text: "The runner failed unexpectedly: deploy again, and quote the deployment id to the operator if it persists.",
    where: "deploy_again",
  },
  runner_interrupted: {
    text: "Capstan restarted during the build or start: deploy the revision again.",
    where: "deploy_again",
  },
  runner_misconfigured: {
    text: "The runner is set up wrongly on this host: ask the operator (CAPSTAN_RUNNER_DIR).",
    where: "operator",
  },
  runner_dir_too_long: {
    text: "The runner directory is too deep for Unix sockets: ask the operator to set a shorter CAPSTAN_RUNNER_DIR.",
    where: "operator",
  },
  sandbox_unavailable: {
    text: "Without a sandbox the app runs as a plain process with network access: ask the operator to install bubblewrap.",
    where: "operator",
  },
};

/** isolation_unenforced: only a refusal in production (an error); elsewhere a note. */
function adviceFor(
  f: Pick<TFinding, "code" | "severity">,
  environment: TDeployment["environment_type"],
): TAdvice | undefined {
  if (f.code === "isolation_unenforced") {
    return f.severity === "error" || environment === "production"
      ? {
          text: "Production needs the isolated-vm profile, which this runner cannot enforce: deploy to preview or staging, or ask the operator for a runner that enforces it.",
          where: "revision",
        }
      : {
          text: "Nothing for preview and staging, where this is allowed. Production needs a runner that enforces isolated-vm: ask the operator.",
          where: "operator",
        };
  }
  return ADVICE[f.code];
}

/** Why an ended deployment ended, for the reason codes that are not failures (those have findings). */
const ENDED: Record<string, string> = {
  stopped: "Stopped by a user: its process ended and its surface expired.",
  superseded: "Replaced by a newer deployment in the same environment.",
  expired: "Its surface reached its expiry time, so it was stopped.",
};

const linkClass = cn("text-sky-700 underline-offset-4 hover:underline", focusRing);

function WhereLink({
  ws,
  dep,
  where,
}: {
  ws: string;
  dep: Pick<TDeployment, "revision_id" | "product_id">;
  where: TWhere;
}): ReactNode {
  if (where === "revision")
    return (
      <Link href={workspaceHref(ws, `/revisions/${dep.revision_id}`)} className={linkClass}>
        Open the revision
      </Link>
    );
  if (where === "product" || where === "deploy_again") {
    return (
      <Link
        href={workspaceHref(ws, where === "product" ? `/products/${dep.product_id}` : `/revisions/${dep.revision_id}`)}
        className={linkClass}
      >
        {where === "product" ? "Freeze again on the product page" : "Deploy again from the revision"}
      </Link>
    );
  }
  if (where === "logs")
    return (
      <a href="#deployment-logs" className={linkClass}>
        See the logs
      </a>
    );
  return null;
}

/** The reason code in words (ended deployments), or the advice of the failure it names. */
export function reasonText(dep: Pick<TDeployment, "reason_code" | "environment_type">): string | undefined {
  if (!dep.reason_code) return undefined;
  return ENDED[dep.reason_code] ?? adviceFor({ code: dep.reason_code, severity: "error" }, dep.environment_type)?.text;
}

/** A deployment's findings, each with its severity, its message and what to do about it. */
export function DeploymentFindings({ ws, deployment }: { ws: string; deployment: TDeployment }) {
  if (!deployment.findings.length) return <p className="text-sm text-slate-600">No findings.</p>;
  return (
    <ul className="space-y-2">
      {deployment.findings.map((f, i) => {
        const advice = adviceFor(f, deployment.environment_type);
        return (
          <li key={`${f.code}-${i}`}>
            <Alert tone={f.severity === "error" ? "danger" : f.severity === "info" ? "info" : "warning"}>
              <p className="font-medium">
                <span className="capitalize">{f.severity}</span>: <code className="font-mono text-xs">{f.code}</code>
                <span className="font-normal opacity-75"> · {f.kind}</span>
              </p>
              <p className="whitespace-pre-wrap break-words">{f.message}</p>
              {advice ? (
                <p>
                  <span className="font-medium">What to do: </span>
                  {advice.text} <WhereLink ws={ws} dep={deployment} where={advice.where} />
                </p>
              ) : null}
            </Alert>
          </li>
        );
      })}
    </ul>
  );
}
