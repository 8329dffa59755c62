import type { SelectHTMLAttributes } from "react";
import { Select } from "@/components/ui/select";

/**
 * A select of a closed list of values (currencies, plans), each option
 * labelled by `label` (the value itself by default), typed by the list.
 */
export function ValueSelect<V extends string>({
  value,
  options,
  onValue,
  label = (v) => v,
  ...props
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, "value" | "onChange"> & {
  value: V;
  options: readonly V[];
  onValue: (value: V) => void;
  label?: (value: V) => string;
}) {
  return (
    <Select value={value} onChange={(e) => onValue(e.target.value as V)} {...props}>
      {options.map((v) => (
        <option key={v} value={v}>
          {label(v)}
        </option>
      ))}
    </Select>
  );
}
