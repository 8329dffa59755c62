"use client";

import { Button } from "@/components/ui/button";

type TPagedQuery = { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> };

/** "Load more" for an infinite query; nothing once the last page is loaded. */
export function LoadMore({
  query,
  label = "Load more",
  className = "px-5 py-4",
  size = "sm",
}: {
  query: TPagedQuery;
  label?: string;
  /** Classes of the wrapper; the default suits a table card without padding. */
  className?: string;
  size?: "sm" | "md";
}) {
  if (!query.hasNextPage) return null;
  return (
    <div className={className}>
      <Button
        variant="secondary"
        size={size}
        disabled={query.isFetchingNextPage}
        onClick={() => void query.fetchNextPage()}
      >
        {query.isFetchingNextPage ? "Loading…" : label}
      </Button>
    </div>
  );
}
