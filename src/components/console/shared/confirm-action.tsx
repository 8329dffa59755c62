"use client";

import { useMutation, type UseMutationOptions } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { Button, type TButtonProps } from "@/components/ui/button";
import { ConfirmDialog } from "./confirm-dialog";

export type TConfirmActionProps<TData, TError, TVars, TContext> = {
  /** The mutation to run on confirm, e.g. `trpc.bindings.delete.mutationOptions()`. */
  mutation: UseMutationOptions<TData, TError, TVars, TContext>;
  /** Its input, read when the owner confirms (so fields of the dialog can shape it). */
  variables: TVars | (() => TVars);
  /** After the mutation succeeded and the dialog closed: invalidate, show a secret, navigate. */
  onDone?: (data: TData) => unknown;
  /** Called each time the dialog opens (reset the dialog's fields). */
  onOpen?: () => void;
  /** The trigger button's visible label, and what screen readers hear after it (which row). */
  label: ReactNode;
  srLabel?: string;
  icon?: ReactNode;
  variant?: TButtonProps["variant"];
  size?: TButtonProps["size"];
  disabled?: boolean;
  /** The trigger's tooltip (why it is disabled, for instance). */
  hint?: string;
  /** The dialog: its title, what happens, the confirm button's labels and its variant. */
  title: ReactNode;
  description?: ReactNode;
  confirmLabel: ReactNode;
  pendingLabel: ReactNode;
  confirmVariant?: "danger" | "primary";
  /** Disables the confirm button while the dialog's fields are not valid yet (it is disabled while pending regardless). */
  confirmDisabled?: boolean;
  /** Fields of the dialog (e.g. how long an old secret keeps working). */
  children?: ReactNode;
};

/**
 * Confirm-then-mutate: a button that opens a confirmation dialog, runs its
 * mutation on confirm, shows the server's problem in the dialog when it fails,
 * and closes on success. Each trigger owns its dialog and mutation state, so a
 * table row's action never shows another row's error.
 */
export function ConfirmAction<TData, TError, TVars, TContext>({
  mutation,
  variables,
  onDone,
  onOpen,
  label,
  srLabel,
  icon,
  variant = "danger",
  size = "sm",
  disabled,
  hint,
  title,
  description,
  confirmLabel,
  pendingLabel,
  confirmVariant,
  confirmDisabled,
  children,
}: TConfirmActionProps<TData, TError, TVars, TContext>) {
  const [open, setOpen] = useState(false);
  const action = useMutation({
    ...mutation,
    onSuccess: async (...args) => {
      await mutation.onSuccess?.(...args);
      setOpen(false);
      await onDone?.(args[0]);
    },
  });
  return (
    <>
      <Button
        variant={variant}
        size={size}
        disabled={disabled}
        title={hint}
        onClick={() => {
          action.reset();
          onOpen?.();
          setOpen(true);
        }}
      >
        {icon}
        {label}
        {srLabel ? <span className="sr-only"> {srLabel}</span> : null}
      </Button>
      <ConfirmDialog
        open={open}
        onClose={() => setOpen(false)}
        title={title}
        description={description}
        variant={confirmVariant ?? (variant === "danger" ? "danger" : "primary")}
        confirmLabel={confirmLabel}
        pendingLabel={pendingLabel}
        pending={action.isPending}
        disabled={action.isPending || Boolean(confirmDisabled)}
        error={action.error}
        onConfirm={() => action.mutate(typeof variables === "function" ? (variables as () => TVars)() : variables)}
      >
        {children}
      </ConfirmDialog>
    </>
  );
}
