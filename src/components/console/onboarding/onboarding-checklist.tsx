"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CheckCircle2, Circle, X } from "lucide-react";
import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { TOnboarding, TOnboardingStepKey } from "@/server/domain/onboarding/onboarding.contract";
import { workspaceHref } from "../shell/nav-config";

const STEP_TEXT: Record<TOnboardingStepKey, { title: string; todo: string; link: string }> = {
  product: {
    title: "Add a product",
    todo: "Point Capstan at a git repository; it freezes the source and detects how to run it.",
    link: "Go to products",
  },
  contract: {
    title: "Confirm its descriptor and capability contract",
    todo: "Review what was detected and the capabilities the product asks for, then confirm.",
    link: "Review the revision",
  },
  provider: {
    title: "Add a credential and a provider binding",
    todo: "Store a provider's API key (never shown again), then bind it to a capability.",
    link: "Add a credential or binding",
  },
  service_identity: {
    title: "Create a service identity",
    todo: "The identity your product's code uses to call the Bridge; its secret is shown once.",
    link: "Go to service identities",
  },
  first_call: {
    title: "Make a first Bridge call",
    todo: "Run the commands below with your identity's secret; the call appears in the invocations list.",
    link: "See invocations",
  },
};

/**
 * The first-hour checklist on the workspace overview: each step is computed
 * by the server from what exists (onboarding.get), links to the page that
 * does it, and is ticked when done. Hidden for good once everything is done,
 * or when this person dismisses it (per person and workspace; the settings
 * page brings it back).
 */
export function OnboardingChecklist({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const onboarding = useQuery(trpc.onboarding.get.queryOptions(wsOnly(ws)));
  const dismiss = useMutation(
    trpc.onboarding.setDismissed.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.onboarding.pathFilter()),
    }),
  );

  // The overview shows the workspace's own error; a failed checklist only says so once, quietly.
  if (onboarding.error)
    return <Alert title="The onboarding checklist could not be loaded" problem={problemOf(onboarding.error)} />;
  const o = onboarding.data;
  if (!o || o.complete || o.dismissed) return null;
  const done = o.steps.filter((s) => s.done).length;

  return (
    <Card role="region" aria-labelledby="onboarding-title">
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <CardTitle id="onboarding-title">Get started</CardTitle>
          <CardDescription>
            From an empty workspace to a first Bridge call. {done} of {o.steps.length} steps done.
          </CardDescription>
        </div>
        <Button
          variant="ghost"
          size="sm"
          disabled={dismiss.isPending}
          onClick={() => dismiss.mutate({ ws, dismissed: true })}
        >
          <X aria-hidden="true" />
          Dismiss checklist
        </Button>
      </CardHeader>
      <CardContent className="space-y-4">
        {dismiss.error ? <Alert title="The checklist was not dismissed" problem={problemOf(dismiss.error)} /> : null}
        <ol className="space-y-3" aria-label="Onboarding steps">
          {o.steps.map((step) => {
            const text = STEP_TEXT[step.key];
            return (
              <li key={step.key} className="flex gap-3">
                {step.done ? (
                  <CheckCircle2 aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-emerald-700" />
                ) : (
                  <Circle aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-slate-500" />
                )}
                <div className="min-w-0 flex-1 space-y-1">
                  <p className="flex flex-wrap items-center gap-2 text-sm font-medium text-slate-900">
                    {text.title}
                    {step.done ? <Badge tone="success">Done</Badge> : null}
                  </p>
                  {!step.done ? <p className="text-sm text-slate-600">{text.todo}</p> : null}
                  <Link
                    href={workspaceHref(ws, step.path)}
                    className="text-sm text-sky-800 underline underline-offset-4 hover:text-sky-950"
                  >
                    {text.link}
                  </Link>
                  {step.key === "first_call" && !step.done ? <FirstCall o={o} /> : null}
                </div>
              </li>
            );
          })}
        </ol>
      </CardContent>
    </Card>
  );
}

function FirstCall({ o }: { o: TOnboarding }) {
  if (!o.first_call) {
    return (
      <p className="text-sm text-slate-600">
        {o.first_call_blocker ??
          "Once a service identity of a product with a confirmed contract exists, the commands to run appear here."}
      </p>
    );
  }
  const c = o.first_call;
  return (
    <div className="space-y-2 pt-1">
      <p className="text-sm text-slate-700">
        As <strong className="font-medium">{c.identity_name}</strong> (
        <code className="font-mono text-xs">{c.client_id}</code>), call{" "}
        <code className="font-mono text-xs">{c.capability}</code> <code className="font-mono text-xs">{c.action}</code>.
        Replace the placeholder with the client secret you copied when you created the identity (it is never shown
        again; rotate it on the service identities page if it is lost). The commands use{" "}
        <code className="font-mono text-xs">curl</code> and <code className="font-mono text-xs">jq</code>.
      </p>
      <pre
        aria-label="First Bridge call commands"
        tabIndex={0}
        className="max-w-full overflow-x-auto rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-50"
      >
        {c.curl}
      </pre>
      <CopyButton value={c.curl} size="sm" label="Copy commands" />
    </div>
  );
}
