"use client";

import { Check, Copy } from "lucide-react";
import Link from "next/link";
import { Fragment, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { idLinkClass } from "../shared/id-link";
import { useCopied } from "./use-copied";

/**
 * One column of a ResourceTable. `priority` 1 is always shown; 2 hides when
 * the table's card is narrower than 48rem and 3 when narrower than 64rem
 * (container queries, so a table in a half-width card drops them too). In
 * the card layout below 768 px every column shows, led by its `label`.
 */
export type TColumn<T> = {
  key: string;
  label: string;
  /** Visible header when it differs from `label` (e.g. sr-only for an actions column). */
  header?: ReactNode;
  cell: (row: T) => ReactNode;
  priority?: 1 | 2 | 3;
  className?: string;
  /** The row's header cell (`<th scope="row">`). */
  rowHeader?: boolean;
};

const HIDE: Record<1 | 2 | 3, string> = { 1: "", 2: "md:@max-3xl:hidden", 3: "md:@max-5xl:hidden" };

/** "dep_01jb…x7k2qa": the prefix, an ellipsis and the last six characters. */
export function shortId(id: string): string {
  const cut = id.indexOf("_") + 1;
  return id.length - cut <= 10 ? id : `${id.slice(0, cut + 4)}…${id.slice(-6)}`;
}

/** Copies one id; the icon turns into a check for two seconds. `label` is its name before that ("Copy {id}"). */
export function CopyIdButton({
  id,
  label = `Copy ${id}`,
  className = "shrink-0 [&_svg]:size-3.5",
}: {
  id: string;
  label?: string;
  className?: string;
}) {
  const { copied, copy } = useCopied();
  return (
    <Button
      variant="ghost"
      size="icon"
      className={cn("size-6", className)}
      aria-label={copied ? `Copied ${id}` : label}
      title={copied ? "Copied" : `Copy ${id}`}
      onClick={() => copy(id)}
    >
      {copied ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
    </Button>
  );
}

/**
 * An id shortened to fit a table cell, with a copy button. The full id stays
 * the link's accessible name (and the cell's text for search), shown on hover.
 */
export function ShortId({ id, href }: { id: string; href?: string }) {
  const body = (
    <>
      <span className="sr-only">{id}</span>
      <span aria-hidden="true">{shortId(id)}</span>
    </>
  );
  return (
    <span className="inline-flex items-center gap-1 whitespace-nowrap">
      {href ? (
        <Link href={href} className={idLinkClass} title={id}>
          {body}
        </Link>
      ) : (
        <code className="font-mono text-xs" title={id}>
          {body}
        </code>
      )}
      <CopyIdButton id={id} />
    </span>
  );
}

/**
 * The console's table of resources, never wider than its card: low-priority
 * columns hide as the card narrows, ids are shortened, long text wraps, an
 * opened row's `details` are as wide as the card and scroll inside
 * themselves, and below 768 px every row becomes a card of label-value lines.
 */
export type TResourceTableProps<T> = {
  caption: string;
  columns: TColumn<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  details?: (row: T) => ReactNode;
  /** The id of a row's details row (for the toggle's aria-controls). */
  detailsId?: (row: T) => string;
  rowClassName?: (row: T) => string | undefined;
};

/** The actions column of a ResourceTable: buttons right-aligned, wrapping, named for screen readers only. */
export function actionsColumn<T>(cell: (row: T) => ReactNode, label = "Actions"): TColumn<T> {
  return {
    key: "actions",
    label,
    header: <span className="sr-only">{label}</span>,
    cell: (row) => <div className="flex flex-wrap gap-2 md:justify-end">{cell(row)}</div>,
  };
}

export function ResourceTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  details,
  detailsId,
  rowClassName,
}: TResourceTableProps<T>) {
  return (
    <div className="@container w-full" data-resource-table="">
      <table className="w-full border-collapse text-left text-sm max-md:block">
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-slate-200 bg-slate-50 text-xs text-slate-700 uppercase max-md:sr-only">
          <tr>
            {columns.map((c) => (
              <th key={c.key} scope="col" className={cn("px-3 py-2 font-medium tracking-wide", HIDE[c.priority ?? 1])}>
                {c.header ?? c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 max-md:block">
          {rows.map((row) => {
            const key = rowKey(row);
            const more = details?.(row);
            return (
              <Fragment key={key}>
                <tr className={cn("align-middle max-md:block max-md:px-4 max-md:py-3", rowClassName?.(row))}>
                  {columns.map((c) => {
                    const Cell = c.rowHeader ? "th" : "td";
                    return (
                      <Cell
                        key={c.key}
                        scope={c.rowHeader ? "row" : undefined}
                        className={cn(
                          "px-3 py-3 break-words",
                          c.rowHeader && "font-medium text-slate-900",
                          "max-md:flex max-md:min-w-0 max-md:flex-wrap max-md:items-baseline max-md:gap-x-3 max-md:px-0 max-md:py-1",
                          HIDE[c.priority ?? 1],
                          c.className,
                        )}
                      >
                        <span
                          aria-hidden="true"
                          className="w-28 shrink-0 text-xs font-medium text-slate-600 uppercase md:hidden"
                        >
                          {c.label}
                        </span>
                        {c.cell(row)}
                      </Cell>
                    );
                  })}
                </tr>
                {more ? (
                  <tr id={detailsId?.(row)} className={cn("max-md:block", rowClassName?.(row))}>
                    <td colSpan={columns.length} className="px-3 pt-0 pb-3 max-md:block">
                      <div className="w-[calc(100cqw-1.5rem)] overflow-x-auto max-md:w-full">{more}</div>
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
