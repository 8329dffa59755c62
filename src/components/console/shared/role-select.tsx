import type { SelectHTMLAttributes } from "react";
import { Select } from "@/components/ui/select";
import type { TRole } from "@/server/domain/identity/workspace-access.service";
import { ROLE_OPTIONS, titleCase } from "./format";

/** A select of workspace roles ("Owner" only when the caller may grant it). */
export function RoleSelect({
  value,
  onRole,
  allowOwner = true,
  ...props
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, "value" | "onChange"> & {
  value: TRole;
  onRole: (role: TRole) => void;
  allowOwner?: boolean;
}) {
  return (
    <Select value={value} onChange={(e) => onRole(e.target.value as TRole)} {...props}>
      {ROLE_OPTIONS.filter((r) => allowOwner || r !== "owner").map((r) => (
        <option key={r} value={r}>
          {titleCase(r)}
        </option>
      ))}
    </Select>
  );
}
