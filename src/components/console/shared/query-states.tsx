import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { problemOf } from "@/lib/trpc/client";
import { Loading } from "./page-header";

type TQuery = { isPending: boolean; error: unknown; data?: unknown };

/**
 * What a list shows before or instead of its rows: loading, the error, and,
 * once data is in and there are no rows, the empty message.
 */
export function QueryStates({
  query,
  what,
  empty = false,
  emptyText,
  errorTitle,
  inset = true,
}: {
  query: TQuery;
  /** For "Loading {what}…". */
  what: string;
  /** Whether the loaded list has no rows. */
  empty?: boolean;
  emptyText?: ReactNode;
  errorTitle?: ReactNode;
  /** Pad each state for a card whose content has no padding (tables run edge to edge). */
  inset?: boolean;
}) {
  const pad = (node: ReactNode) => (inset ? <div className="px-5 py-4">{node}</div> : node);
  return (
    <>
      {query.isPending ? pad(<Loading what={what} />) : null}
      {query.error ? pad(<Alert title={errorTitle} problem={problemOf(query.error)} />) : null}
      {query.data && empty && emptyText ? (
        <p className={inset ? "px-5 py-4 text-sm text-slate-600" : "text-sm text-slate-600"}>{emptyText}</p>
      ) : null}
    </>
  );
}
