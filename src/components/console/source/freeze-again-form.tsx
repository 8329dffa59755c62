"use client";

import { useMutation } from "@tanstack/react-query";
import { RefreshCw } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { TextField } from "../shared/text-field";
import { FreezeProgress } from "./freeze-progress";

/** Freezes the product's repository at a ref once more, and follows that freeze. */
export function FreezeAgainForm({
  ws,
  prod,
  defaultRef,
  canFreeze,
}: {
  ws: string;
  prod: string;
  defaultRef: string;
  canFreeze: boolean;
}) {
  const trpc = useTRPC();
  const [ref, setRef] = useState(defaultRef);
  const refreeze = useMutation(trpc.source.refreeze.mutationOptions());

  function submit(e: FormEvent) {
    e.preventDefault();
    refreeze.mutate({ ws, prod, ref: ref.trim() });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Freeze again</CardTitle>
        <CardDescription>
          Freeze the repository at a ref once more. Each freeze gives a new revision with its own descriptor and
          contract.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
          <TextField
            id="refreeze-ref"
            label="Ref"
            className="min-w-64 flex-1"
            name="ref"
            required
            maxLength={256}
            autoComplete="off"
            value={ref}
            disabled={!canFreeze}
            onValue={setRef}
          />
          <Button type="submit" disabled={!canFreeze || refreeze.isPending}>
            <RefreshCw aria-hidden="true" />
            {refreeze.isPending ? "Starting…" : "Freeze again"}
          </Button>
        </form>
        {refreeze.error ? <Alert title="The freeze was not started" problem={problemOf(refreeze.error)} /> : null}
        {refreeze.data && !refreeze.isPending ? (
          <FreezeProgress
            key={refreeze.data.source_freeze_id}
            ws={ws}
            frz={refreeze.data.source_freeze_id}
            showProductLink={false}
          />
        ) : null}
      </CardContent>
    </Card>
  );
}
