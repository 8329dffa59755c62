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
        <Input id={inputId} readOnly value={value} className="min-w-0 flex-1 font-mono text-xs" onFocus={(e) => e.currentTarget.select()} />
        <CopyButton value={value} label={copyLabel} />
        {children}
      </div>
    </div>
  );
}

type TOneTimeSecretProps = Omit<TSecretFieldProps, "className" | "children"> & {
  title: ReactNode;
  /** Why to copy it now, and what it is for. */
  warning: ReactNode;
  onDone: () => void;
};

/** A secret the server returns once: the warning, the field with a copy button, and Done to dismiss it. */
export function OneTimeSecret({ title, warning, onDone, ...field }: TOneTimeSecretProps) {
  return (
    <Alert tone="warning" title={title}>
      <p>{warning}</p>
      <SecretField {...field} className="pt-2">
        <Button variant="ghost" onClick={onDone}>
          Done
        </Button>
      </SecretField>
    </Alert>
  );
}
