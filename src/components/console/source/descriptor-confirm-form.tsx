"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { CheckCheck } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { problemOf, useTRPC, type TProblemView } from "@/lib/trpc/client";
import type { TRevision } from "@/server/domain/source/source.contract";
import type { TDescriptor } from "@/server/domain/source/source.types";
import { buildEdits, confirmFailure, draftOf, type TConfirmInput, type TDraft } from "./descriptor-edits";
import { ApproveWidening, BuildPlanFields, RuntimeFields } from "./descriptor-form-fields";

/** Edit and confirm a detected runtime descriptor (spec 2.6): only the fields the user changed are sent. */
export function DescriptorConfirmForm({
  ws,
  revision,
  descriptor,
  canApprove,
}: {
  ws: string;
  revision: TRevision;
  descriptor: TDescriptor;
  canApprove: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [initial] = useState(() => draftOf(descriptor));
  const [draft, setDraft] = useState<TDraft>(initial);
  const [approve, setApprove] = useState(false);
  const [clientProblem, setClientProblem] = useState<TProblemView | null>(null);
  const confirm = useMutation(
    trpc.source.confirmDescriptor.mutationOptions({
      onSuccess: async () => {
        await Promise.all([
          queryClient.invalidateQueries(trpc.source.getRevision.pathFilter()),
          queryClient.invalidateQueries(trpc.source.listRevisions.pathFilter()),
          queryClient.invalidateQueries(trpc.source.capabilityContract.pathFilter()),
        ]);
      },
    }),
  );
  const preview = buildEdits(descriptor, initial, draft);
  const changed = "changed" in preview ? preview.changed : [];
  const bp = descriptor.build_plan;
  const nodeRuntime = descriptor.runtime.kind === "node";

  function set<K extends keyof TDraft>(k: K) {
    return (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    confirm.reset();
    const built = buildEdits(descriptor, initial, draft);
    if ("problem" in built) {
      setClientProblem(built.problem);
      return;
    }
    setClientProblem(null);
    const input: TConfirmInput = { ws, prod: revision.product_id, rev: revision.id };
    if (Object.keys(built.edits).length) input.edits = built.edits;
    if (canApprove && approve) input.approve_widening = true;
    confirm.mutate(input);
  }

  const serverProblem = problemOf(confirm.error);
  const failure = serverProblem ? confirmFailure(serverProblem, canApprove) : null;
  const invalid = (label: string) => (clientProblem?.errors?.some((e) => e.path === label) ? true : undefined);

  return (
    <form onSubmit={submit} className="space-y-5" noValidate>
      {bp ? <BuildPlanFields draft={draft} set={set} invalid={invalid} /> : null}
      <RuntimeFields draft={draft} set={set} invalid={invalid} nodeRuntime={nodeRuntime} />
      {canApprove ? <ApproveWidening checked={approve} onChange={setApprove} /> : null}

      <p className="text-sm text-slate-600" aria-live="polite">
        {changed.length
          ? `You changed: ${changed.join(", ")}. These fields become “developer”.`
          : "No changes: the detected descriptor is confirmed as it is."}
      </p>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={confirm.isPending}>
          <CheckCheck aria-hidden="true" />
          {confirm.isPending ? "Confirming…" : "Confirm descriptor"}
        </Button>
        <Button
          variant="secondary"
          disabled={confirm.isPending || changed.length === 0}
          onClick={() => {
            setDraft(initial);
            setClientProblem(null);
          }}
        >
          Undo changes
        </Button>
      </div>
      {clientProblem ? <Alert problem={clientProblem} /> : null}
      {serverProblem && failure ? (
        <Alert title={failure.title} problem={serverProblem}>
          {failure.sentence ? <p>{failure.sentence}</p> : null}
        </Alert>
      ) : null}
    </form>
  );
}
