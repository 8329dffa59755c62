"use client";

import type { ReactNode } from "react";
import { Card, CardContent } from "@/components/ui/card";
import { LoadMore } from "./load-more";
import { QueryStates } from "./query-states";

/** A filter bar over a list: its selects and fields in a card of their own, wrapping. */
export function FilterBar({ children }: { children: ReactNode }) {
  return (
    <Card>
      <CardContent className="flex flex-wrap items-end gap-4 pt-6">{children}</CardContent>
    </Card>
  );
}

/**
 * A paged list in a card that is not a table (or a table of its own): the
 * query's loading, error and empty states, the list once there are rows
 * (`children`), and "Load more".
 */
export function ListCard({
  query,
  what,
  empty,
  emptyText,
  loadMoreLabel,
  children,
}: {
  query: {
    isPending: boolean;
    error: unknown;
    data?: unknown;
    hasNextPage: boolean;
    isFetchingNextPage: boolean;
    fetchNextPage: () => Promise<unknown>;
  };
  /** For "Loading {what}…". */
  what: string;
  empty: boolean;
  emptyText: ReactNode;
  loadMoreLabel: string;
  children: ReactNode;
}) {
  return (
    <Card>
      <CardContent className="px-0 py-0">
        <QueryStates query={query} what={what} empty={empty} emptyText={emptyText} />
        {empty ? null : children}
        <LoadMore query={query} label={loadMoreLabel} />
      </CardContent>
    </Card>
  );
}
