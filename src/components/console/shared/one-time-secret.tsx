"use client";

import { useId, type ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";

type TSecretFieldProps = {
  /** The input's id; generated when omitted. */
  id?: string;
  label: string;
  value: string;
  /** The copy button's label, e.g. "Copy token". */
  copyLabel: string;
  className?: string;
  /** More controls on the field's row, after the copy button. */
  children?: ReactNode;
};

/** A labelled read-only field (selected on focus) with a copy button, on a warning panel. */
export function SecretField({ id, label, value, copyLabel, className, children }: TSecretFieldProps) {
  const generated = useId();
  const inputId = id ?? generated;
  return (
    <div className={cn("space-y-1.5", className)}>
      <Label htmlFor={inputId} className="text-amber-950">
        {label}
      </Label>
      <div className="flex flex-wrap items-center gap-2">
        <Input
          id={inputId}
          readOnly
          value={value}
          className="min-w-0 flex-1 font-mono text-xs"
          onFocus={(e) => e.currentTarget.select()}
        />
        <CopyButton value={value} label={copyLabel} />
        {children}
      </div>
    </div>
  );
}

type TSecretFieldSpec = Omit<TSecretFieldProps, "className" | "children">;

type TOneTimeSecretProps = {
  title: ReactNode;
  /** Why to copy it now, and what it is for. */
  warning: ReactNode;
  /** More fields shown with the secret (e.g. a client id), side by side from 640 px. */
  fields?: TSecretFieldSpec[];
  /** How to use it, under the fields. */
  note?: ReactNode;
  onDone: () => void;
} & Partial<TSecretFieldSpec>;

/**
 * The secret-shown-once panel: the warning, each field with a copy button,
 * how to use it, and Done to dismiss it. Either one field (label, value,
 * copyLabel) or several (`fields`).
 */
export function OneTimeSecret({ title, warning, fields, note, onDone, ...field }: TOneTimeSecretProps) {
  const all: TSecretFieldSpec[] = fields ?? (field.value !== undefined ? [field as TSecretFieldSpec] : []);
  const [only] = all;
  if (only && all.length === 1 && !note) {
    return (
      <Alert tone="warning" title={title}>
        <p>{warning}</p>
        <SecretField {...only} className="pt-2">
          <Button variant="ghost" onClick={onDone}>
            Done
          </Button>
        </SecretField>
      </Alert>
    );
  }
  return (
    <Alert tone="warning" title={title}>
      <p>{warning}</p>
      <div className="grid gap-3 pt-2 sm:grid-cols-2">
        {all.map((f) => (
          <SecretField key={f.label} {...f} />
        ))}
      </div>
      {note ? <p className="pt-2 text-xs">{note}</p> : null}
      <Button variant="ghost" onClick={onDone}>
        Done
      </Button>
    </Alert>
  );
}
