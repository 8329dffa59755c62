import type { ReactNode } from "react";
import { Select } from "@/components/ui/select";
import { Field } from "./field";

type TOption = string | { value: string; label: ReactNode };

/**
 * A labelled filter select: "any" first (the empty value), then the options
 * (plain strings, or value and label). For filter bars over a list.
 */
export function OptionSelect({
  id,
  label,
  value,
  onChange,
  anyLabel,
  options,
  className,
  selectClassName,
}: {
  id: string;
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  /** The empty option's text ("Any outcome"). */
  anyLabel: string;
  options: readonly TOption[];
  className?: string;
  /** The select's own classes (a compact `h-8` in a card's toolbar). */
  selectClassName?: string;
}) {
  return (
    <Field id={id} label={label} className={className}>
      <Select id={id} className={selectClassName} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{anyLabel}</option>
        {options.map((o) => {
          const { value: v, label: l } = typeof o === "string" ? { value: o, label: o } : o;
          return (
            <option key={v} value={v}>
              {l}
            </option>
          );
        })}
      </Select>
    </Field>
  );
}
