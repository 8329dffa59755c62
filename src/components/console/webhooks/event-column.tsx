import type { TColumn } from "../shared/resource-table";

/** The "Event" row-header column of the deliveries and dead-letter tables: the event type over its id. */
export function eventColumn<T extends { event_type: string; event_id: string }>(): TColumn<T> {
  return {
    key: "event",
    label: "Event",
    rowHeader: true,
    cell: (d) => (
      <div>
        <div>{d.event_type}</div>
        <code className="font-mono text-xs font-normal break-all text-slate-600">{d.event_id}</code>
      </div>
    ),
  };
}
