"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Rocket, Send } from "lucide-react";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TRelease } from "@/server/domain/releases/releases.contract";
import { formatDateTime } from "../shared/format";
import { workspaceHref } from "../shell/nav-config";
import { ReleaseStatusBadge } from "./release-status";

const AUDIENCES = [
  { kind: "internal", hint: "People who build the product." },
  { kind: "workspace", hint: "Every member of this workspace." },
  { kind: "custom", hint: "Anyone: the app decides who gets in (anonymous requests reach it)." },
] as const;
type TAudience = (typeof AUDIENCES)[number]["kind"];
const STEPS = ["Version", "Audience", "Window", "Review"] as const;

/** `datetime-local` value (local time, minutes) for a Date. */
const localInput = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
const toIso = (v: string) => (v ? new Date(v).toISOString() : null);

/**
 * The release wizard: version -> audience -> window -> review and create
 * (channel staged) -> deploy to staging. The server decides the status
 * (draft, pending_approval when the contract widens the live one, blocked
 * when the window is over) and re-checks everything.
 */
export function ReleaseWizardButton({
  ws,
  productId,
  versionId,
}: {
  ws: string;
  productId: string;
  versionId: string;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [step, setStep] = useState(0);
  const [version, setVersion] = useState(versionId);
  const [audience, setAudience] = useState<TAudience>("workspace");
  const [startsAt, setStartsAt] = useState("");
  const [endsAt, setEndsAt] = useState("");
  const [created, setCreated] = useState<TRelease | null>(null);
  const versions = useQuery({
    ...trpc.releases.versions.queryOptions({ ws, product_id: productId, limit: 50, order: "desc" }),
    enabled: open,
  });
  const create = useMutation(
    trpc.releases.createRelease.mutationOptions({
      onSuccess: async (r) => {
        setCreated(r);
        await queryClient.invalidateQueries(trpc.releases.releases.pathFilter());
      },
    }),
  );
  const deploy = useMutation(
    trpc.releases.deployRelease.mutationOptions({
      onSuccess: (r) => router.push(workspaceHref(ws, `/releases/${r.release.id}`)),
    }),
  );
  const problem = problemOf(create.error ?? deploy.error);
  const qualified = (versions.data?.items ?? []).filter((v) => v.qualified);

  function start() {
    setStep(0);
    setCreated(null);
    create.reset();
    deploy.reset();
    setStartsAt(localInput(new Date()));
    setEndsAt("");
    setOpen(true);
  }

  const body = () => ({
    ws,
    product_id: productId,
    version_id: version,
    channel: "staged" as const,
    audience: { kind: audience },
    window: { starts_at: toIso(startsAt) ?? new Date().toISOString(), ends_at: toIso(endsAt) },
  });

  return (
    <>
      <Button size="sm" onClick={start}>
        <Send aria-hidden="true" />
        Create release
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={created ? "Release created" : `New release: ${STEPS[step]}`}
        description={
          created
            ? undefined
            : `Step ${step + 1} of ${STEPS.length}. A release offers a qualified version to an audience inside a window.`
        }
        footer={
          created ? (
            <>
              <Button variant="secondary" onClick={() => router.push(workspaceHref(ws, `/releases/${created.id}`))}>
                Open release
              </Button>
              {created.status === "draft" ? (
                <Button
                  onClick={() => deploy.mutate({ ws, rel: created.id, environment_type: "staging" })}
                  disabled={deploy.isPending || deploy.isSuccess}
                >
                  <Rocket aria-hidden="true" />
                  {deploy.isPending || deploy.isSuccess ? "Deploying…" : "Deploy to staging"}
                </Button>
              ) : null}
            </>
          ) : (
            <>
              <Button variant="secondary" onClick={() => (step === 0 ? setOpen(false) : setStep(step - 1))}>
                {step === 0 ? "Cancel" : "Back"}
              </Button>
              {step < STEPS.length - 1 ? (
                <Button onClick={() => setStep(step + 1)} disabled={step === 0 && !version}>
                  Next
                </Button>
              ) : (
                <Button onClick={() => create.mutate(body())} disabled={create.isPending}>
                  {create.isPending ? "Creating…" : "Create release"}
                </Button>
              )}
            </>
          )
        }
      >
        {created ? (
          <div className="space-y-2 text-sm">
            <p className="flex items-center gap-2">
              <code className="font-mono text-xs">{created.id}</code>
              <ReleaseStatusBadge status={created.status} />
            </p>
            {created.status === "pending_approval" ? (
              <Alert tone="warning" title="Waiting for approval">
                {created.widening?.why
                  ? `The version's contract asks for more than the live release's (${created.widening.why}). `
                  : null}
                An owner or admin approves it on the release page.
              </Alert>
            ) : null}
            {created.status === "blocked" ? (
              <Alert tone="danger" title="Blocked">
                {created.reason_code}
              </Alert>
            ) : null}
          </div>
        ) : step === 0 ? (
          <div className="space-y-1.5">
            <Label htmlFor={`${id}-version`}>Version</Label>
            <Select id={`${id}-version`} value={version} onChange={(e) => setVersion(e.target.value)}>
              {(qualified.length ? qualified : [{ id: versionId, label: versionId }]).map((v) => (
                <option key={v.id} value={v.id}>
                  {v.label}
                </option>
              ))}
            </Select>
            <p className="text-xs text-slate-600">
              Only qualified versions (their latest evaluation passed) can be released.
            </p>
          </div>
        ) : step === 1 ? (
          <div className="space-y-1.5">
            <Label htmlFor={`${id}-audience`}>Audience</Label>
            <Select id={`${id}-audience`} value={audience} onChange={(e) => setAudience(e.target.value as TAudience)}>
              {AUDIENCES.map((a) => (
                <option key={a.kind} value={a.kind}>
                  {a.kind.charAt(0).toUpperCase() + a.kind.slice(1)}
                </option>
              ))}
            </Select>
            <p className="text-xs text-slate-600">{AUDIENCES.find((a) => a.kind === audience)!.hint}</p>
          </div>
        ) : step === 2 ? (
          <div className="space-y-4">
            <div className="space-y-1.5">
              <Label htmlFor={`${id}-starts`}>Starts at</Label>
              <Input
                id={`${id}-starts`}
                type="datetime-local"
                value={startsAt}
                onChange={(e) => setStartsAt(e.target.value)}
              />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor={`${id}-ends`}>Ends at (optional)</Label>
              <Input
                id={`${id}-ends`}
                type="datetime-local"
                value={endsAt}
                onChange={(e) => setEndsAt(e.target.value)}
              />
              <p className="text-xs text-slate-600">
                Empty: open-ended. When the window ends, the release retires and its deployment stops.
              </p>
            </div>
          </div>
        ) : (
          <dl aria-label="Review" className="grid grid-cols-3 gap-2 text-sm">
            <dt className="text-slate-600">Version</dt>
            <dd className="col-span-2">{qualified.find((v) => v.id === version)?.label ?? version}</dd>
            <dt className="text-slate-600">Channel</dt>
            <dd className="col-span-2">Staged</dd>
            <dt className="text-slate-600">Audience</dt>
            <dd className="col-span-2">{audience}</dd>
            <dt className="text-slate-600">Window</dt>
            <dd className="col-span-2">
              {formatDateTime(toIso(startsAt), "now")} – {formatDateTime(toIso(endsAt), "open-ended")}
            </dd>
          </dl>
        )}
        {problem ? <Alert title={deploy.error ? "Not deployed" : "Not created"} problem={problem} /> : null}
      </Dialog>
    </>
  );
}
