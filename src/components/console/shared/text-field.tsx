import type { InputHTMLAttributes, ReactNode } from "react";
import { Input } from "@/components/ui/input";
import { Field } from "./field";

/** A labelled text input (Field + Input): `onValue` gets the typed text; other props go to the input. */
export function TextField({
  id,
  label,
  hint,
  className,
  onValue,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "className"> & {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  /** The Field's class (its width in a form row). */
  className?: string;
  onValue: (value: string) => void;
}) {
  return (
    <Field id={id} label={label} hint={hint} className={className}>
      <Input id={id} onChange={(e) => onValue(e.target.value)} {...input} />
    </Field>
  );
}
