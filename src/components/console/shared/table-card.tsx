"use client";

import type { ReactNode } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { LoadMore } from "./load-more";
import { QueryStates } from "./query-states";
import { ResourceTable, type TResourceTableProps } from "./resource-table";

/** The rows of a list query's data: an array, a page (`items`) or an infinite query's pages. */
function rowsOf<T>(data: unknown): T[] {
  if (Array.isArray(data)) return data as T[];
  if (data && typeof data === "object") {
    if ("pages" in data) return (data as { pages: { items: T[] }[] }).pages.flatMap((p) => p.items);
    if ("items" in data) return (data as { items: T[] }).items;
  }
  return [];
}

type TListQuery = {
  isPending: boolean;
  error: unknown;
  data?: unknown;
  hasNextPage?: boolean;
  isFetchingNextPage?: boolean;
  fetchNextPage?: () => Promise<unknown>;
};

/**
 * The table-in-a-card of a list page: the card's title (with an optional
 * description and filters or buttons on the right), the query's loading,
 * error and empty states, the ResourceTable once there are rows, and "Load
 * more" for a paged query.
 */
export function TableCard<T>({
  title,
  description,
  toolbar,
  query,
  what,
  emptyText,
  loadMoreLabel,
  notice,
  rows: given,
  rowKey = (row) => (row as { id: string }).id,
  ...rest
}: Omit<TResourceTableProps<T>, "rows" | "rowKey"> & {
  /** The rows; by default those of `query` (a list, a page or an infinite query's pages). */
  rows?: T[];
  /** By default the row's `id`. */
  rowKey?: (row: T) => string;
  title: ReactNode;
  description?: ReactNode;
  /** Filters or buttons at the header's right. */
  toolbar?: ReactNode;
  query: TListQuery;
  /** For "Loading {what}…". */
  what: string;
  emptyText: ReactNode;
  loadMoreLabel?: string;
  /** Alerts above the rows (an action's outcome). */
  notice?: ReactNode;
}) {
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  const table = { ...rest, rows: given ?? rowsOf<T>(query.data), rowKey };
  return (
    <Card>
      <CardHeader className={toolbar ? "flex-row flex-wrap items-end justify-between gap-3" : undefined}>
        <div className="min-w-0 space-y-1">
          <CardTitle>{title}</CardTitle>
          {description ? <CardDescription>{description}</CardDescription> : null}
        </div>
        {toolbar ? <div className="flex flex-wrap items-end gap-3">{toolbar}</div> : null}
      </CardHeader>
      <CardContent className="px-0 py-0">
        {notice ? <div className="space-y-3 px-5 pt-4">{notice}</div> : null}
        <QueryStates query={query} what={what} empty={table.rows.length === 0} emptyText={emptyText} />
        {table.rows.length > 0 ? <ResourceTable {...table} /> : null}
        {fetchNextPage ? (
          <LoadMore
            query={{
              hasNextPage: hasNextPage ?? false,
              isFetchingNextPage: isFetchingNextPage ?? false,
              fetchNextPage,
            }}
            label={loadMoreLabel}
          />
        ) : null}
      </CardContent>
    </Card>
  );
}
