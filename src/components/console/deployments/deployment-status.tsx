"use client";

import { LoaderCircle } from "lucide-react";
import { useEffect, useState } from "react";
import { Badge } from "@/components/ui/badge";
import type { TDeployment, TEnvironmentType, TSurface } from "@/server/domain/deployments/deployments.contract";
import type { TDeploymentStatus } from "@/server/domain/deployments/deployments.states";
import { titleCase } from "../shared/format";

/** The deployment statuses in the order a deployment lives them (for filters). */
export const DEPLOYMENT_STATUSES: TDeploymentStatus[] = [
  "planned",
  "applying",
  "active",
  "superseded",
  "blocked",
  "failed",
];
export const ENVIRONMENTS: TEnvironmentType[] = ["preview", "staging", "production"];

type TTone = "info" | "success" | "warning" | "danger" | "neutral";

const STATUS_TONE: Record<TDeploymentStatus, TTone> = {
  planned: "info",
  applying: "info",
  active: "success",
  superseded: "neutral",
  blocked: "warning",
  failed: "danger",
};

/** Planned or applying: the deployment changes on its own, so a view polls it. */
export const inProgress = (status: TDeploymentStatus) => status === "planned" || status === "applying";
/** Planned, applying or active: something may still run, so it can be stopped and its logs grow. */
export const stoppable = (status: TDeploymentStatus) => inProgress(status) || status === "active";

/**
 * Offered a Redeploy (the same revision to the same environment and slot):
 * preview and staging deployments of a revision; production and release
 * deployments go through the release path.
 */
export const redeployable = (d: Pick<TDeployment, "environment_type" | "source">) =>
  d.environment_type !== "production" && d.source?.kind !== "release";

export function DeploymentStatusBadge({ status }: { status: TDeploymentStatus }) {
  return (
    <Badge tone={STATUS_TONE[status]} className="gap-1">
      {inProgress(status) ? (
        <LoaderCircle aria-hidden="true" className="size-3 animate-spin motion-reduce:animate-none" />
      ) : null}
      {titleCase(status)}
    </Badge>
  );
}

const SURFACE_TONE: Record<TSurface["status"], TTone> = {
  awaiting_expiration_registration: "info",
  validating: "info",
  active: "success",
  expiration_registration_failed: "danger",
  configuration_failed: "danger",
  expired: "neutral",
};

export function SurfaceStatusBadge({ status }: { status: TSurface["status"] }) {
  return <Badge tone={SURFACE_TONE[status]}>{titleCase(status.replace(/_/g, " "))}</Badge>;
}

/** "Preview", or "Preview · slot pr-42" when the slot is not the default one. */
export function environmentLabel(d: Pick<TDeployment, "environment_type" | "slot">): string {
  return d.slot === "default" ? titleCase(d.environment_type) : `${titleCase(d.environment_type)} · slot ${d.slot}`;
}

const MIB = 1024 * 1024;

/** "memory 512 MiB, processes 128, CPU weight 50, disk 1024 MiB" with "(not enforced)" after each limit nothing enforces. */
function limitsInWords(l: NonNullable<NonNullable<TDeployment["isolation"]>["limits"]>): string {
  const one = (label: string, v: { value: number; enforced: boolean }, unit = "") =>
    `${label} ${unit === "MiB" ? Math.round(v.value / MIB) : v.value}${unit ? ` ${unit}` : ""}${v.enforced ? "" : " (not enforced)"}`;
  return [
    one("memory", l.memory_bytes, "MiB"),
    one("processes", l.processes),
    one("CPU weight", l.cpu_weight),
    one("disk", l.disk_bytes, "MiB"),
  ].join(", ");
}

/**
 * The isolation a deployment got, in words, e.g. "gVisor kernel boundary:
 * filesystem, no network · uid 201234, no capabilities · memory 512 MiB, ...
 * (isolated-vm enforced)" or "Sandboxed with bubblewrap: ... (isolated-vm not enforced)".
 */
export function isolationSummary(isolation: TDeployment["isolation"]): string {
  if (!isolation) return "Not reported yet";
  const parts: string[] = [];
  const kept = [isolation.filesystem && "filesystem", isolation.network && "no network"].filter(Boolean);
  if (isolation.sandbox === "gvisor") parts.push(`gVisor kernel boundary${kept.length ? `: ${kept.join(", ")}` : ""}`);
  else if (isolation.sandbox === "bubblewrap")
    parts.push(`Sandboxed with bubblewrap${kept.length ? `: ${kept.join(", ")}` : ""}`);
  else if (isolation.sandbox === "none")
    parts.push(
      `Not sandboxed${isolation.sandbox_unavailable_reason ? ` (${isolation.sandbox_unavailable_reason})` : ""}: a plain process with network access`,
    );
  if (isolation.identity?.uid != null) parts.push(`uid ${isolation.identity.uid}, no capabilities`);
  if (isolation.limits) parts.push(limitsInWords(isolation.limits));
  else if (!isolation.resource_limits && !isolation.enforced) parts.push("no resource limits");
  if (!isolation.vm_boundary && !isolation.kernel_boundary) parts.push("no VM boundary");
  const by = isolation.runner ? ` by the ${isolation.runner} runner` : "";
  return isolation.enforced
    ? `${parts.length ? `${parts.join(" · ")} ` : ""}(isolated-vm enforced${by})`
    : `${parts.join(" · ")} (isolated-vm not enforced)`;
}

/* ------------------------------------------------------------------------------------------------
 * Relative time: a clock that ticks, and durations in words.
 * ---------------------------------------------------------------------------------------------- */

/** The current time, updated every `intervalMs` (so countdowns move). */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);
  return now;
}

/** 90061000 ms -> "1 day 1 hour"; under an hour the seconds show too ("4 min 12 s"). */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (days) return [plural(days, "day"), hours ? plural(hours, "hour") : ""].filter(Boolean).join(" ");
  if (hours) return [plural(hours, "hour"), minutes ? `${minutes} min` : ""].filter(Boolean).join(" ");
  return minutes ? `${minutes} min ${seconds} s` : `${seconds} s`;
}

/** "in 6 days 23 hours" or "3 min 2 s ago". */
export function relativeTo(iso: string, now: number): string {
  const delta = Date.parse(iso) - now;
  return delta >= 0 ? `in ${formatDuration(delta)}` : `${formatDuration(-delta)} ago`;
}
