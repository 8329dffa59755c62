"use client";

import { Pencil } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { problemOf } from "@/lib/trpc/client";

type TRenameMutation = {
  mutate: (name: string, opts: { onSuccess: () => void }) => void;
  isPending: boolean;
  error: unknown;
  reset: () => void;
};

/**
 * "Rename" and its dialog. Names are unique in the workspace ignoring case;
 * the server's 409 (name_taken) is shown in the dialog, which stays open.
 */
export function RenameButton({
  what,
  current,
  mutation,
  disabled,
}: {
  what: string;
  current: string;
  mutation: TRenameMutation;
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(current);
  const inputId = useId();

  function close() {
    setOpen(false);
    mutation.reset();
  }
  function submit(e: FormEvent) {
    e.preventDefault();
    mutation.mutate(name.trim(), { onSuccess: () => setOpen(false) });
  }

  return (
    <>
      <Button
        variant="secondary"
        size="sm"
        disabled={disabled}
        aria-label={`Rename ${what} ${current}`}
        onClick={() => {
          setName(current);
          mutation.reset();
          setOpen(true);
        }}
      >
        <Pencil aria-hidden="true" />
        Rename
      </Button>
      <Dialog
        open={open}
        onClose={close}
        title={`Rename ${what}`}
        description="Names are unique in this workspace, ignoring upper and lower case."
      >
        <form onSubmit={submit} className="space-y-4">
          <div className="space-y-1.5">
            <Label htmlFor={inputId}>Name</Label>
            <Input
              id={inputId}
              required
              maxLength={100}
              autoComplete="off"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          {mutation.error ? <Alert title="The name was not changed" problem={problemOf(mutation.error)} /> : null}
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" disabled={mutation.isPending || name.trim().length === 0}>
              {mutation.isPending ? "Saving…" : "Save name"}
            </Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
