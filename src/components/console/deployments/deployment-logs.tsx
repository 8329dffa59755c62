"use client";

import { useQuery } from "@tanstack/react-query";
import { Download } from "lucide-react";
import { useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { Button, buttonVariants } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TDeploymentStatus } from "@/server/domain/deployments/deployments.states";
import { inProgress, stoppable } from "./deployment-status";
import { Loading } from "../shared/page-header";

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
          {text.split("\n").map((line, i, all) => {
            if (i === all.length - 1 && !line) return null;
            const m = /^(\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d\.\d{3})Z) (.*)$/.exec(line);
            return (
              <span key={i} className="block" data-log-line="">
                {m ? (
                  <>
                    <time dateTime={m[1]} title={m[1]} className="mr-2 text-slate-400 select-none">
                      {m[2]}
                    </time>
                    {m[3]}
                  </>
                ) : (
                  line
                )}
              </span>
            );
          })}
        </pre>
      ) : (
        <p className="text-sm text-slate-600">{emptyText}</p>
      )}
    </section>
  );
}

type TStep = { name: string; status: string; duration_ms: number | null; command: string | null };
const STEP_TONE: Record<string, "success" | "danger" | "info" | "neutral"> = {
  succeeded: "success",
  failed: "danger",
  running: "info",
};

/** Unpack, install, build, start: each with its outcome and duration. */
function BuildSteps({ steps }: { steps: TStep[] }) {
  return (
    <ol aria-label="Build steps" className="flex flex-wrap gap-2 text-sm">
      {steps.map((s) => (
        <li
          key={s.name}
          data-step={s.name}
          className="flex items-center gap-2 rounded-md border border-slate-200 px-2 py-1"
          title={s.command ?? undefined}
        >
          <span className="font-medium capitalize">{s.name}</span>
          <Badge tone={STEP_TONE[s.status] ?? "neutral"}>{s.status}</Badge>
          {s.duration_ms !== null ? (
            <span className="font-mono text-xs text-slate-600">{(s.duration_ms / 1000).toFixed(1)} s</span>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

/**
 * The build log and the running app's log (deployments.logs), polled every
 * 2 s while the deployment is planned, applying or active. Refetched once
 * when the status changes, since the build log is stored as the build ends.
 * `onEnded` is called when the app stopped running although the deployment
 * still says active (a crash or an expiry the page has not seen yet).
 */
export function DeploymentLogsCard({
  ws,
  dep,
  status,
  onEnded,
}: {
  ws: string;
  dep: string;
  status: TDeploymentStatus;
  onEnded: () => void;
}) {
  const trpc = useTRPC();
  const [follow, setFollow] = useState(true);
  const [draft, setDraft] = useState("");
  const [q, setQ] = useState("");
  const logs = useQuery(
    trpc.deployments.logs.queryOptions(
      { ws, dep, tail_bytes: 262_144, ...(q ? { q } : {}) },
      { refetchInterval: follow && stoppable(status) ? 2000 : false, staleTime: 0 },
    ),
  );
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
          <CardDescription>
            The build steps, then every line the app writes, with its time. Run logs are kept{" "}
            {data ? `${data.retention_days} days` : "for the retention period"}, also after the app stops.
          </CardDescription>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {data?.live ? <Badge tone="success">Live</Badge> : null}
          <label className="flex items-center gap-1 text-sm">
            <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
          </label>
          <a
            className={buttonVariants({ variant: "secondary", size: "sm" })}
            href={`/v1/workspaces/${ws}/deployments/${dep}/logs/download`}
            download
          >
            <Download aria-hidden="true" />
            Download
          </a>
        </div>
      </CardHeader>
      <CardContent className="space-y-5">
        <form
          role="search"
          className="flex flex-wrap items-center gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            setQ(draft.trim());
          }}
        >
          <Input
            aria-label="Search the logs"
            placeholder="Search the logs"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            className="max-w-xs"
          />
          <Button type="submit" size="sm" variant="secondary">
            Search
          </Button>
          {q ? (
            <Button
              type="button"
              size="sm"
              variant="secondary"
              onClick={() => {
                setDraft("");
                setQ("");
              }}
            >
              Clear
            </Button>
          ) : null}
        </form>
        {data?.build_steps.length ? <BuildSteps steps={data.build_steps} /> : null}
        {logs.isPending ? <Loading what="logs" /> : null}
        {logs.error ? <Alert problem={problemOf(logs.error)} /> : null}
        {data ? (
          <>
            <LogPanel
              title="Build log"
              text={data.build_log}
              emptyText={
                q
                  ? `No line contains “${q}”.`
                  : inProgress(status)
                    ? "The build log appears here once the install and build steps have finished."
                    : "No build log was kept."
              }
            />
            <LogPanel
              title="Run log"
              text={data.run_log}
              emptyText={
                q
                  ? `No line contains “${q}”.`
                  : data.live
                    ? "The app has not written anything yet."
                    : data.run_log_expired_before
                      ? "The run log is past its retention."
                      : "The app wrote nothing."
              }
            />
          </>
        ) : null}
      </CardContent>
    </Card>
  );
}
