"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useLayoutEffect, useRef } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TDeploymentStatus } from "@/server/domain/deployments/deployments.states";
import { inProgress, stoppable } from "./deployment-status";
import { Loading } from "./page-header";

/**
 * A monospace, scrollable log that follows its end: new text scrolls it to
 * the bottom unless the reader has scrolled up to read something.
 */
function LogPanel({ title, text, emptyText }: { title: string; text: string; emptyText: string }) {
  const headingId = useId();
  const ref = useRef<HTMLPreElement>(null);
  const stick = useRef(true);

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [text]);

  return (
    <section aria-labelledby={headingId} className="min-w-0 space-y-2">
      <h3 id={headingId} className="text-sm font-semibold text-slate-700">
        {title}
      </h3>
      {text ? (
        <pre
          ref={ref}
          role="log"
          aria-labelledby={headingId}
          // Polls every 2 s: announcing each chunk would drown a screen reader.
          aria-live="off"
          tabIndex={0}
          onScroll={(e) => {
            const el = e.currentTarget;
            stick.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 8;
          }}
          className="max-h-96 overflow-auto rounded-md bg-slate-950 p-3 font-mono text-xs leading-relaxed whitespace-pre-wrap break-words text-slate-100 focus-visible:ring-2 focus-visible:ring-sky-600 focus-visible:outline-none"
        >
          {text}
        </pre>
      ) : (
        <p className="text-sm text-slate-600">{emptyText}</p>
      )}
    </section>
  );
}

/**
 * The build log and the running app's log (deployments.logs), polled every
 * 2 s while the deployment is planned, applying or active. Refetched once
 * when the status changes, since the build log is stored as the build ends.
 * `onEnded` is called when the app stopped running although the deployment
 * still says active (a crash or an expiry the page has not seen yet).
 */
export function DeploymentLogsCard({ ws, dep, status, onEnded }: { ws: string; dep: string; status: TDeploymentStatus; onEnded: () => void }) {
  const trpc = useTRPC();
  const logs = useQuery(trpc.deployments.logs.queryOptions({ ws, dep }, { refetchInterval: stoppable(status) ? 2000 : false, staleTime: 0 }));
  const { refetch } = logs;
  const seen = useRef(status);

  useEffect(() => {
    if (seen.current === status) return;
    seen.current = status;
    void refetch();
  }, [status, refetch]);

  const ended = logs.data && !logs.data.live && status === "active";
  useEffect(() => {
    if (ended) onEnded();
  }, [ended, onEnded]);

  const data = logs.data;
  return (
    <Card id="deployment-logs" className="scroll-mt-4">
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <CardTitle>Logs</CardTitle>
          <CardDescription>The install and build output, then what the app writes while it runs (the last 64 KiB).</CardDescription>
        </div>
        {data?.live ? <Badge tone="success">Live</Badge> : null}
      </CardHeader>
      <CardContent className="space-y-5">
        {logs.isPending ? <Loading what="logs" /> : null}
        {logs.error ? <Alert problem={problemOf(logs.error)} /> : null}
        {data ? (
          <>
            <LogPanel
              title="Build log"
              text={data.build_log}
              emptyText={inProgress(status) ? "The build log appears here once the install and build steps have finished." : "No build log was kept."}
            />
            <LogPanel
              title="Run log"
              text={data.run_log}
              emptyText={data.live ? "The app has not written anything yet." : "The run log is only kept while the app runs."}
            />
          </>
        ) : null}
      </CardContent>
    </Card>
  );
}
