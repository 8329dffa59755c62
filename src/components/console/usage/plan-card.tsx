"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { problemOf, useTRPC, wsOnly } from "@/lib/trpc/client";
import type { TPlanName, TUsageCategory } from "@/server/domain/usage/usage.contract";
import { Field } from "../shared/field";
import { CATEGORY_LABEL, PLAN_OPTIONS, titleCase } from "../shared/format";
import { Loading } from "../shared/page-header";
import { ValueSelect } from "../shared/value-select";

/** The workspace's plan, its entitlements per usage category, and (owner/admin) a form to change it. */
export function PlanCard({ ws, canManage }: { ws: string; canManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const plan = useQuery(trpc.usage.plan.queryOptions(wsOnly(ws)));
  const [choice, setChoice] = useState<TPlanName | null>(null);
  const setPlan = useMutation(
    trpc.usage.setPlan.mutationOptions({
      onSuccess: async () => {
        setChoice(null);
        await Promise.all([
          queryClient.invalidateQueries(trpc.usage.pathFilter()),
          queryClient.invalidateQueries(trpc.workspaces.pathFilter()),
        ]);
      },
    }),
  );
  const current = plan.data?.plan;
  const selected = choice ?? current ?? "free";

  function submit(e: FormEvent) {
    e.preventDefault();
    setPlan.mutate({ ws, plan: selected });
  }

  return (
    <SectionCard
      title="Plan"
      description="The plan decides which usage categories the workspace is entitled to."
      contentClassName="space-y-4"
    >
      {plan.isPending ? <Loading what="plan" /> : null}
      {plan.error ? <Alert problem={problemOf(plan.error)} /> : null}
      {plan.data ? (
        <>
          <p className="text-sm">
            Current plan: <Badge tone="info">{titleCase(plan.data.plan)}</Badge>
          </p>
          <div>
            <h3 className="mb-2 text-sm font-medium text-slate-700">Entitlements</h3>
            <ul className="grid gap-2 sm:grid-cols-2">
              {(Object.keys(CATEGORY_LABEL) as TUsageCategory[]).map((c) => (
                <li
                  key={c}
                  className="flex items-center justify-between gap-2 rounded-md border border-slate-200 px-3 py-2 text-sm"
                >
                  <span>{CATEGORY_LABEL[c]}</span>
                  {plan.data.entitlements[c] ? <Badge tone="success">Included</Badge> : <Badge>Not included</Badge>}
                </li>
              ))}
            </ul>
          </div>
          {canManage ? (
            <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
              <Field id="plan-select" label="Plan" className="w-48">
                <ValueSelect
                  id="plan-select"
                  name="plan"
                  value={selected}
                  options={PLAN_OPTIONS}
                  label={titleCase}
                  onValue={setChoice}
                />
              </Field>
              <Button type="submit" disabled={setPlan.isPending || selected === current}>
                {setPlan.isPending ? "Changing…" : "Change plan"}
              </Button>
            </form>
          ) : null}
          {setPlan.error ? <Alert problem={problemOf(setPlan.error)} /> : null}
          {setPlan.isSuccess ? <Alert tone="success">The plan is now {titleCase(setPlan.data.plan)}.</Alert> : null}
        </>
      ) : null}
    </SectionCard>
  );
}
