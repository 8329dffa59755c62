"use client";

import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { problemOf } from "@/lib/trpc/client";

type TConfirmDialogProps = {
  open: boolean;
  title: ReactNode;
  description?: ReactNode;
  /** The confirm button's label, e.g. "Revoke token". */
  confirmLabel: ReactNode;
  /** Shown on the confirm button while `pending`, e.g. "Revoking…". */
  pendingLabel: ReactNode;
  pending: boolean;
  /** Disables the confirm button; defaults to `pending` (set it when another action of the same dialog may be running). */
  disabled?: boolean;
  /** The mutation's error, shown as a problem alert in the dialog. */
  error?: unknown;
  variant?: "danger" | "primary";
  onConfirm: () => void;
  onClose: () => void;
  /** Optional fields of the action (e.g. how long an old secret keeps working), above the error. */
  children?: ReactNode;
};

/**
 * A confirmation for a destructive (or otherwise irreversible) action: Cancel,
 * focused first so Enter does not confirm by accident, and the confirm button.
 */
export function ConfirmDialog({
  open,
  title,
  description,
  confirmLabel,
  pendingLabel,
  pending,
  disabled = pending,
  error,
  variant = "danger",
  onConfirm,
  onClose,
  children,
}: TConfirmDialogProps) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={title}
      description={description}
      footer={
        <>
          <Button variant="secondary" onClick={onClose} autoFocus>
            Cancel
          </Button>
          <Button variant={variant} disabled={disabled} onClick={onConfirm}>
            {pending ? pendingLabel : confirmLabel}
          </Button>
        </>
      }
    >
      {children}
      {error ? <Alert problem={problemOf(error)} /> : null}
    </Dialog>
  );
}
