"use client";

import { useLayoutEffect, useRef, type HTMLAttributes, type TdHTMLAttributes, type ThHTMLAttributes } from "react";
import { cn } from "./cn";

/**
 * A data table. From 640 px up it is a table that scrolls sideways inside
 * its card when it must; below that every row becomes a stacked card, each
 * cell led by its column's header (copied into `data-label` after render),
 * so nothing, actions included, needs horizontal scrolling on a phone.
 * Cells marked `sticky` (actions) stay visible at the right edge while the
 * table scrolls.
 */
export function Table({ className, ...props }: HTMLAttributes<HTMLTableElement>) {
  const ref = useRef<HTMLTableElement>(null);
  useLayoutEffect(() => {
    const table = ref.current;
    if (!table) return;
    const heads = Array.from(table.querySelectorAll("thead th")).map((th) => th.textContent?.trim() ?? "");
    for (const row of Array.from(table.querySelectorAll("tbody tr"))) {
      Array.from(row.children).forEach((cell, i) => {
        if (!cell.hasAttribute("data-label") && heads[i]) cell.setAttribute("data-label", heads[i]);
      });
    }
  });
  return (
    <div className="w-full sm:overflow-x-auto">
      <table ref={ref} className={cn("w-full border-collapse text-left text-sm max-sm:block", className)} {...props} />
    </div>
  );
}

export function TableHeader({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) {
  return (
    <thead
      className={cn("border-b border-slate-200 bg-slate-50 text-xs text-slate-700 uppercase max-sm:sr-only", className)}
      {...props}
    />
  );
}

export function TableBody({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) {
  return <tbody className={cn("divide-y divide-slate-100 max-sm:block", className)} {...props} />;
}

export function TableRow({ className, ...props }: HTMLAttributes<HTMLTableRowElement>) {
  return <tr className={cn("align-middle max-sm:block max-sm:px-4 max-sm:py-3", className)} {...props} />;
}

export function TableHead({ className, scope = "col", ...props }: ThHTMLAttributes<HTMLTableCellElement>) {
  return <th scope={scope} className={cn("px-4 py-2 font-medium tracking-wide", className)} {...props} />;
}

export function TableCell({
  className,
  sticky,
  ...props
}: TdHTMLAttributes<HTMLTableCellElement> & { sticky?: boolean }) {
  return (
    <td
      className={cn(
        "px-4 py-3",
        "max-sm:flex max-sm:min-w-0 max-sm:flex-wrap max-sm:items-baseline max-sm:gap-x-3 max-sm:px-0 max-sm:py-1",
        "max-sm:before:w-28 max-sm:before:shrink-0 max-sm:before:text-xs max-sm:before:font-medium max-sm:before:text-slate-600 max-sm:before:uppercase max-sm:before:content-[attr(data-label)]",
        sticky && "bg-white sm:sticky sm:right-0 sm:shadow-[-6px_0_6px_-6px_rgb(15_23_42/0.2)]",
        className,
      )}
      {...props}
    />
  );
}

/** The sticky header cell over a column of `sticky` cells. */
export function TableActionsHead({ label = "Actions" }: { label?: string }) {
  return (
    <TableHead className="bg-slate-50 sm:sticky sm:right-0">
      <span className="sr-only">{label}</span>
    </TableHead>
  );
}

export function TableCaption({ className, ...props }: HTMLAttributes<HTMLTableCaptionElement>) {
  return <caption className={cn("sr-only", className)} {...props} />;
}
