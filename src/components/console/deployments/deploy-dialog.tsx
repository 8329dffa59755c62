"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Rocket } from "lucide-react";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC, type TProblemView } from "@/lib/trpc/client";
import type { TEnvironmentType } from "@/server/domain/deployments/deployments.contract";
import { ENVIRONMENTS } from "./deployment-status";
import { titleCase } from "../shared/format";
import { workspaceHref } from "../shell/nav-config";
import { StandingBanner } from "../billing/standing-banner";

const ENVIRONMENT_HINT: Record<TEnvironmentType, string> = {
  preview: "A short-lived surface to try the revision (expires after a week by default).",
  staging: "A longer-lived environment to test before production.",
  production: "Needs the isolated-vm profile: refused when this runner cannot enforce it.",
};

/** Titles for the 409s of deployments.create; the problem's detail follows them. */
function deployFailure(problem: TProblemView | null): { title: string; sentence?: string } {
  switch (problem?.reason) {
    case "descriptor_unconfirmed":
      return {
        title: "The descriptor is not confirmed",
        sentence: "Review and confirm the runtime descriptor on this page, then deploy.",
      };
    case "contract_rejected":
      return {
        title: "The capability contract was rejected",
        sentence: "Fix capabilities.json and freeze a new revision.",
      };
    case "contract_pending":
      return { title: "The capability contract is not ready yet", sentence: "Wait a moment and deploy again." };
    default:
      return { title: "The deployment was not started" };
  }
}

/**
 * "Deploy" and its dialog: an environment, an optional slot, then
 * deployments.create; on success the new deployment's page opens (it may be
 * `blocked`, and that page explains why). From a product (`prod`): the
 * revision is chosen in the dialog (the latest confirmed one by default) and
 * only preview and staging are offered (production is the release path).
 * `redeploy`: the same revision to the same environment and slot. `context`
 * ends the button's accessible name where several sit on one page (a
 * product's environments: "Redeploy Preview").
 */
export function DeployButton({
  ws,
  rev,
  prod,
  redeploy,
  context,
}: {
  ws: string;
  rev?: string;
  prod?: string;
  redeploy?: { environment: TEnvironmentType; slot: string };
  context?: string;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const formId = useId();
  const [open, setOpen] = useState(false);
  const [environment, setEnvironment] = useState<TEnvironmentType>(redeploy?.environment ?? "preview");
  const [slot, setSlot] = useState(redeploy && redeploy.slot !== "default" ? redeploy.slot : "");
  const [chosen, setChosen] = useState("");
  const revisions = useQuery({
    ...trpc.source.listRevisions.queryOptions({ ws, product_id: prod ?? "", limit: 50, order: "desc" }),
    enabled: Boolean(prod) && open,
  });
  const confirmed = (revisions.data?.items ?? []).filter(
    (r) => r.descriptor_status === "confirmed" && r.capability_contract?.status !== "rejected",
  );
  const target = rev ?? (chosen || confirmed[0]?.id);
  const environments = prod ? ENVIRONMENTS.filter((e) => e !== "production") : ENVIRONMENTS;
  const deploy = useMutation(
    trpc.deployments.create.mutationOptions({
      onSuccess: async (dep) => {
        await queryClient.invalidateQueries(trpc.deployments.list.pathFilter());
        router.push(workspaceHref(ws, `/deployments/${dep.id}`));
      },
    }),
  );
  const problem = problemOf(deploy.error);
  const failure = problem ? deployFailure(problem) : null;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!target) return;
    deploy.mutate({ ws, rev: target, environment_type: environment, ...(slot.trim() ? { slot: slot.trim() } : {}) });
  }

  return (
    <>
      <Button
        size="sm"
        onClick={() => {
          deploy.reset();
          setOpen(true);
        }}
      >
        <Rocket aria-hidden="true" />
        {redeploy ? "Redeploy" : "Deploy"}
        {context ? <span className="sr-only"> {context}</span> : null}
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={
          redeploy ? "Redeploy this revision" : prod ? "Deploy a revision of this product" : "Deploy this revision"
        }
        description={
          redeploy ? (
            <>
              The same revision (<code className="font-mono text-xs break-all">{rev}</code>), built and started again;
              the new deployment replaces the one running there once it is healthy.
            </>
          ) : (
            "Capstan installs, builds and starts it, checks its health, then gives it a surface URL."
          )
        }
        footer={
          <>
            <Button variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" form={formId} disabled={!target || deploy.isPending || deploy.isSuccess}>
              <Rocket aria-hidden="true" />
              {deploy.isPending || deploy.isSuccess ? "Deploying…" : "Deploy"}
            </Button>
          </>
        }
      >
        <form id={formId} onSubmit={submit} className="space-y-4" noValidate>
          <StandingBanner ws={ws} where="deploy" />
          {prod ? (
            <div className="space-y-1.5">
              <Label htmlFor={`${formId}-rev`}>Revision</Label>
              <Select
                id={`${formId}-rev`}
                name="revision"
                value={target ?? ""}
                onChange={(e) => setChosen(e.target.value)}
                aria-describedby={`${formId}-rev-hint`}
              >
                {confirmed.map((r, i) => (
                  <option key={r.id} value={r.id}>
                    {r.id}
                    {r.commit_sha ? ` · ${r.commit_sha.slice(0, 7)}` : ""}
                    {i === 0 ? " (latest confirmed)" : ""}
                  </option>
                ))}
              </Select>
              <p id={`${formId}-rev-hint`} className="text-xs text-slate-600">
                {revisions.isPending
                  ? "Loading revisions…"
                  : confirmed.length
                    ? "Confirmed revisions, newest first."
                    : "No confirmed revision yet: confirm one on its revision page first."}
              </p>
            </div>
          ) : null}
          <div className="space-y-1.5">
            <Label htmlFor={`${formId}-env`}>Environment</Label>
            <Select
              id={`${formId}-env`}
              name="environment_type"
              value={environment}
              onChange={(e) => setEnvironment(e.target.value as TEnvironmentType)}
              aria-describedby={`${formId}-env-hint`}
            >
              {environments.map((env) => (
                <option key={env} value={env}>
                  {titleCase(env)}
                </option>
              ))}
            </Select>
            <p id={`${formId}-env-hint`} className="text-xs text-slate-600">
              {ENVIRONMENT_HINT[environment]}
            </p>
          </div>
          <div className="space-y-1.5">
            <Label htmlFor={`${formId}-slot`}>Slot (optional)</Label>
            <Input
              id={`${formId}-slot`}
              name="slot"
              autoComplete="off"
              maxLength={63}
              placeholder="default"
              className="font-mono text-xs"
              value={slot}
              onChange={(e) => setSlot(e.target.value)}
              aria-invalid={problem?.errors?.some((e) => e.path === "/slot") ? true : undefined}
              aria-describedby={`${formId}-slot-hint`}
            />
            <p id={`${formId}-slot-hint`} className="text-xs text-slate-600">
              A parallel lane in the environment, e.g. one preview per branch: lowercase letters, digits and hyphens. A
              new deployment replaces the live one of the same environment and slot.
            </p>
          </div>
        </form>
        {problem && failure ? (
          <Alert title={failure.title} problem={problem}>
            {failure.sentence ? <p>{failure.sentence}</p> : null}
          </Alert>
        ) : null}
      </Dialog>
    </>
  );
}
