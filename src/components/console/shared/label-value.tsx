import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { CopyButton } from "@/components/ui/copy-button";

const GRID = {
  2: "grid gap-4 text-sm sm:grid-cols-2",
  3: "grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-3",
  4: "grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-4",
} as const;

const WIDE = {
  2: "sm:col-span-2",
  3: "sm:col-span-2 lg:col-span-3",
  4: "sm:col-span-2",
} as const;

/**
 * A label-value list (`<dl>`): facts of one resource in a grid of 2, 3 or 4
 * columns from 640 px, or `rows` (label beside value, label column `labelWidth`).
 */
export function LabelValueList({
  columns = 3,
  rows = false,
  labelWidth = "12rem",
  className,
  children,
  "aria-label": ariaLabel,
}: {
  columns?: 2 | 3 | 4;
  rows?: boolean;
  labelWidth?: "8rem" | "10rem" | "12rem";
  className?: string;
  children: ReactNode;
  "aria-label"?: string;
}) {
  const rowGrid = {
    "8rem": "sm:grid-cols-[8rem_1fr]",
    "10rem": "sm:grid-cols-[10rem_1fr]",
    "12rem": "sm:grid-cols-[12rem_1fr]",
  }[labelWidth];
  return (
    <dl
      aria-label={ariaLabel}
      className={cn(rows ? `grid gap-x-6 gap-y-2 text-sm ${rowGrid} [&>div]:contents` : GRID[columns], className)}
    >
      {children}
    </dl>
  );
}

/**
 * One label and its value. `wide` spans the list's width (for ids and long
 * text), `span` two columns; `small` sets the label as a small caps heading.
 */
export function LabelValue({
  label,
  wide = false,
  span,
  small = false,
  columns = 3,
  className,
  children,
}: {
  label: ReactNode;
  wide?: boolean;
  span?: 2;
  small?: boolean;
  /** The list's column count, so `wide` spans all of them. */
  columns?: 2 | 3 | 4;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={cn("min-w-0 space-y-1", wide && WIDE[columns], span === 2 && "sm:col-span-2", className)}>
      <dt className={small ? "text-xs font-medium text-slate-600 uppercase" : "text-slate-600"}>{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}

/** An id in full with a copy button: the value of a resource's "id" line. */
export function IdValue({ id, label = "Copy id" }: { id: string; label?: string }) {
  return (
    <span className="flex flex-wrap items-center gap-2">
      <code className="font-mono break-all">{id}</code>
      <CopyButton value={id} size="sm" label={label} />
    </span>
  );
}

/** A value that is absent, in words ("none", "not yet known"). */
export function NoValue({ children = "none" }: { children?: ReactNode }) {
  return <span className="text-slate-600">{children}</span>;
}

/** A list of short values (actions, event types) as chips. */
export function ChipList({
  items,
  label,
  className,
}: {
  items: readonly string[];
  label?: string;
  className?: string;
}) {
  return (
    <ul aria-label={label} className={cn("flex max-w-72 flex-wrap gap-1", className)}>
      {items.map((a) => (
        <li key={a}>
          <Badge>{a}</Badge>
        </li>
      ))}
    </ul>
  );
}
