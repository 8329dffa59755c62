"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { SectionCard } from "../shared/section-card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC, wsOnly, type TProblemView } from "@/lib/trpc/client";
import type { TBudget } from "@/server/domain/usage/usage.contract";
import { CATEGORY_LABEL, formatUnits } from "../shared/format";
import { QueryStates } from "../shared/query-states";
import { BudgetBar } from "./budget-bar";

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

/** This month's budget per usage category: used, reserved, a bar against the limit, and the limit's editor. */
export function BudgetsCard({ ws, canManage }: { ws: string; canManage: boolean }) {
  const trpc = useTRPC();
  const budgets = useQuery(trpc.usage.budgets.queryOptions(wsOnly(ws)));
  const month = budgets.data?.items[0]?.month;

  return (
    <SectionCard
      title={<>Budgets{month ? ` for ${month} (UTC)` : ""}</>}
      description="Monthly limits per usage category. Requests that would exceed a limit are refused. Leave a limit empty for unlimited; limits carry over to the next month."
      flush
    >
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
                  <BudgetBar
                    label={CATEGORY_LABEL[b.usage_category]}
                    used={b.used_units}
                    reserved={b.reserved_units}
                    limit={b.limit_units}
                  />
                </TableCell>
                <TableCell>
                  <LimitEditor key={b.usage_category} ws={ws} budget={b} canManage={canManage} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      ) : null}
    </SectionCard>
  );
}
