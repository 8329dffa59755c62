import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { problemOf } from "@/lib/trpc/client";
import { Loading, PageHeader } from "./page-header";

/**
 * The gate of a detail page: its header and the problem when the query
 * failed, "Loading …" until the data is in, then the page itself.
 */
export function PageQuery<T>({
  query,
  title,
  what,
  children,
}: {
  query: { data?: T; error: unknown };
  /** The page's title while it has no data. */
  title: ReactNode;
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (query.error) {
    return (
      <>
        <PageHeader title={title} />
        <Alert problem={problemOf(query.error)} />
      </>
    );
  }
  if (query.data === undefined) return <Loading what={what} />;
  return <>{children(query.data)}</>;
}

/**
 * What a detail page shows until its query has data: its header and the
 * problem when the query failed, else "Loading …". Use as
 * `if (!q.data) return <PageFallback query={q} title="Product" what="product" />;`.
 */
export function PageFallback({ query, title, what }: { query: { error: unknown }; title: ReactNode; what: string }) {
  if (!query.error) return <Loading what={what} />;
  return (
    <>
      <PageHeader title={title} />
      <Alert problem={problemOf(query.error)} />
    </>
  );
}
