"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC, wsOnly, type TProblemView } from "@/lib/trpc/client";
import type { TBudget, TPlanName, TUsageCategory } from "@/server/domain/usage/usage.contract";
import { BudgetBar } from "./budget-bar";
import { CATEGORY_LABEL, formatUnits, PLAN_OPTIONS, titleCase } from "./format";
import { hasRole } from "./nav-config";
import { Loading, PageHeader } from "./page-header";
import { QueryStates } from "./query-states";

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
    <Card>
      <CardHeader>
        <CardTitle>Plan</CardTitle>
        <CardDescription>The plan decides which usage categories the workspace is entitled to.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
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
                  <li key={c} className="flex items-center justify-between gap-2 rounded-md border border-slate-200 px-3 py-2 text-sm">
                    <span>{CATEGORY_LABEL[c]}</span>
                    {plan.data.entitlements[c] ? <Badge tone="success">Included</Badge> : <Badge>Not included</Badge>}
                  </li>
                ))}
              </ul>
            </div>
            {canManage ? (
              <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
                <div className="w-48 space-y-1.5">
                  <Label htmlFor="plan-select">Plan</Label>
                  <Select id="plan-select" name="plan" value={selected} onChange={(e) => setChoice(e.target.value as TPlanName)}>
                    {PLAN_OPTIONS.map((p) => (
                      <option key={p} value={p}>
                        {titleCase(p)}
                      </option>
                    ))}
                  </Select>
                </div>
                <Button type="submit" disabled={setPlan.isPending || selected === current}>
                  {setPlan.isPending ? "Changing…" : "Change plan"}
                </Button>
              </form>
            ) : null}
            {setPlan.error ? <Alert problem={problemOf(setPlan.error)} /> : null}
            {setPlan.isSuccess ? <Alert tone="success">The plan is now {titleCase(setPlan.data.plan)}.</Alert> : null}
          </>
        ) : null}
      </CardContent>
    </Card>
  );
}

/** Parses the limit field: empty means unlimited (null); otherwise a finite number >= 0. */
function parseLimit(raw: string): { ok: true; value: number | null } | { ok: false; problem: TProblemView } {
  const trimmed = raw.trim();
  if (trimmed === "") return { ok: true, value: null };
  const n = Number(trimmed);
  if (!Number.isFinite(n) || n < 0) {
    return { ok: false, problem: { detail: "Enter a number of 0 or more, or leave the field empty for unlimited." } };
  }
  return { ok: true, value: n };
}

function LimitEditor({ ws, budget, canManage }: { ws: string; budget: TBudget; canManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const label = CATEGORY_LABEL[budget.usage_category];
  const inputId = `limit-${budget.usage_category}`;
  // null: not being edited, so show the server's value (which may change under us).
  const [draft, setDraft] = useState<string | null>(null);
  const value = draft ?? (budget.limit_units === null ? "" : String(budget.limit_units));
  const [clientProblem, setClientProblem] = useState<TProblemView | null>(null);
  const setBudget = useMutation(
    trpc.usage.setBudget.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.usage.budgets.pathFilter());
        setDraft(null);
      },
    }),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    setBudget.reset();
    const parsed = parseLimit(value);
    if (!parsed.ok) {
      setClientProblem(parsed.problem);
      return;
    }
    setClientProblem(null);
    setBudget.mutate({ ws, category: budget.usage_category, limit_units: parsed.value });
  }

  const problem = clientProblem ?? problemOf(setBudget.error);
  return (
    <form onSubmit={submit} className="space-y-2" noValidate>
      <div className="flex items-center gap-2">
        <Label htmlFor={inputId} className="sr-only">
          Limit for {label}
        </Label>
        <Input
          id={inputId}
          name="limit_units"
          type="number"
          inputMode="decimal"
          min={0}
          step="any"
          placeholder="unlimited"
          className="h-8 w-32"
          value={value}
          disabled={!canManage}
          aria-invalid={problem ? true : undefined}
          aria-describedby={`${inputId}-hint`}
          onChange={(e) => setDraft(e.target.value)}
        />
        <Button type="submit" size="sm" variant="secondary" disabled={!canManage || setBudget.isPending}>
          {setBudget.isPending ? "Saving…" : "Save"}
          <span className="sr-only"> limit for {label}</span>
        </Button>
      </div>
      <p id={`${inputId}-hint`} className="sr-only">
        Leave empty for unlimited.
      </p>
      {problem ? <Alert problem={problem} title={`${label} limit not saved`} /> : null}
      {setBudget.isSuccess && !problem ? (
        <p role="status" className="text-xs text-emerald-700">
          Saved.
        </p>
      ) : null}
    </form>
  );
}

export function BudgetsCard({ ws, canManage }: { ws: string; canManage: boolean }) {
  const trpc = useTRPC();
  const budgets = useQuery(trpc.usage.budgets.queryOptions(wsOnly(ws)));
  const month = budgets.data?.items[0]?.month;

  return (
    <Card>
      <CardHeader>
        <CardTitle>Budgets{month ? ` for ${month} (UTC)` : ""}</CardTitle>
        <CardDescription>
          Monthly limits per usage category. Requests that would exceed a limit are refused. Leave a limit empty for unlimited;
          limits carry over to the next month.
        </CardDescription>
      </CardHeader>
      <CardContent className="px-0 py-0">
        <QueryStates query={budgets} what="budgets" />
        {budgets.data ? (
          <Table>
            <TableCaption>Budgets per usage category</TableCaption>
            <TableHeader>
              <TableRow>
                <TableHead>Category</TableHead>
                <TableHead className="text-right">Used</TableHead>
                <TableHead className="text-right">Reserved</TableHead>
                <TableHead className="w-56">Usage</TableHead>
                <TableHead>Limit</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {budgets.data.items.map((b) => (
                <TableRow key={b.usage_category} className="align-top">
                  <TableHead scope="row" className="py-3 text-sm font-medium tracking-normal text-slate-900 normal-case">
                    {CATEGORY_LABEL[b.usage_category]}
                    <div className="font-mono text-xs font-normal text-slate-600">{b.usage_category}</div>
                  </TableHead>
                  <TableCell className="text-right tabular-nums">{formatUnits(b.used_units)}</TableCell>
                  <TableCell className="text-right tabular-nums">{formatUnits(b.reserved_units)}</TableCell>
                  <TableCell>
                    <BudgetBar label={CATEGORY_LABEL[b.usage_category]} used={b.used_units} reserved={b.reserved_units} limit={b.limit_units} />
                  </TableCell>
                  <TableCell>
                    <LimitEditor key={b.usage_category} ws={ws} budget={b} canManage={canManage} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        ) : null}
      </CardContent>
    </Card>
  );
}

/** Plan and entitlements, plus this month's budgets with an inline limit editor per category. */
export function PlanView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const canManage = hasRole(workspace.data?.role, "admin");
  return (
    <>
      <PageHeader
        title="Plan & budgets"
        description={workspace.data ? `Plan, entitlements and monthly budgets of ${workspace.data.name}.` : undefined}
      />
      <div className="space-y-6">
        {workspace.error ? <Alert problem={problemOf(workspace.error)} /> : null}
        {workspace.data && !canManage ? (
          <Alert>Only owners and admins can change the plan or budgets. You are {workspace.data.role}.</Alert>
        ) : null}
        {/* One failure, one message: the cards' own queries would repeat the workspace's error twice more. */}
        {workspace.data ? (
          <>
            <PlanCard ws={ws} canManage={canManage} />
            <BudgetsCard ws={ws} canManage={canManage} />
          </>
        ) : null}
      </div>
    </>
  );
}
