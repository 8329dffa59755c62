"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { Download } from "lucide-react";
import { useCallback, useId } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { problemOf } from "@/lib/trpc/client";
import type { TInvocationInput } from "@/server/domain/sessions/sessions.contract";
import { formatBytes } from "./format";
import { Loading } from "./page-header";

export type TEvidence = NonNullable<TInvocationInput["body_evidence"]>;

/** How much of a text body a row shows, and the largest body fetched just to show that much. */
const PREVIEW_BYTES = 4096;
const PREVIEW_MAX_FETCH_BYTES = 1024 * 1024;
/**
 * The raw-bytes routes (POST /v1/workspaces/{ws}/uploads, GET
 * /v1/workspaces/{ws}/evidence/{sha256}) accept the console's session
 * cookie when no Authorization header is sent, like /api/trpc.
 */
function useSessionFetch(): (path: string, init?: RequestInit) => Promise<Response> {
  return useCallback((path, init = {}) => fetch(path, { ...init, credentials: "same-origin" }), []);
}

/** A REST failure as an error `problemOf` understands (the route answers problem+json). */
async function restError(res: Response): Promise<Error> {
  const problem = (await res.json().catch(() => null)) as { detail?: unknown } | null;
  if (problem && typeof problem.detail === "string")
    return Object.assign(new Error(problem.detail), { data: { problem } });
  return new Error(`The request failed with HTTP ${res.status}.`);
}

/** Uploads text (an invocation body) and answers its evidence reference. */
export function useUploadText(ws: string): (text: string) => Promise<TEvidence> {
  const sessionFetch = useSessionFetch();
  return useCallback(
    async (text) => {
      const res = await sessionFetch(`/v1/workspaces/${encodeURIComponent(ws)}/uploads`, {
        method: "POST",
        headers: { "content-type": "text/plain; charset=utf-8" },
        body: text,
      });
      if (res.status !== 201) throw await restError(res);
      const upload = (await res.json()) as TEvidence;
      return { uri: upload.uri, sha256: upload.sha256, size_bytes: upload.size_bytes };
    },
    [sessionFetch, ws],
  );
}

type TPreview = { contentType: string; text: string | null; shownBytes: number };

/** The first PREVIEW_BYTES as text, or `text: null` when the bytes are not UTF-8 text. */
function previewOf(bytes: Uint8Array, contentType: string): TPreview {
  const head = bytes.subarray(0, PREVIEW_BYTES);
  try {
    // `stream` keeps a character cut at the preview's end from counting as invalid.
    const text = new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return { contentType, text: text.includes("\u0000") ? null : text, shownBytes: head.length };
  } catch {
    return { contentType, text: null, shownBytes: 0 };
  }
}

function evidencePath(ws: string, sha256: string) {
  return `/v1/workspaces/${encodeURIComponent(ws)}/evidence/${sha256}`;
}

/**
 * One evidence blob (a response body, a log, a request body): its size and
 * sha256, a Download button and, when `preview` and small enough, the first
 * 4 KiB inline when it is text. Blobs are content-addressed, so a preview
 * never goes stale.
 */
export function EvidenceBlock({
  ws,
  title,
  evidence,
  preview = true,
  emptyText = "Empty.",
}: {
  ws: string;
  title: string;
  evidence: TEvidence | null;
  preview?: boolean;
  emptyText?: string;
}) {
  const headingId = useId();
  const sessionFetch = useSessionFetch();
  const fetchable = !!evidence && evidence.size_bytes > 0;
  const load = preview && fetchable && evidence.size_bytes <= PREVIEW_MAX_FETCH_BYTES;
  const shown = useQuery({
    queryKey: ["evidence-preview", ws, evidence?.sha256],
    enabled: load,
    staleTime: Infinity,
    queryFn: async (): Promise<TPreview> => {
      const res = await sessionFetch(evidencePath(ws, evidence!.sha256));
      if (!res.ok) throw await restError(res);
      return previewOf(
        new Uint8Array(await res.arrayBuffer()),
        res.headers.get("content-type") ?? "application/octet-stream",
      );
    },
  });
  const download = useMutation({
    mutationFn: async () => {
      const res = await sessionFetch(evidencePath(ws, evidence!.sha256));
      if (!res.ok) throw await restError(res);
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement("a");
      a.href = url;
      a.download = `${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${evidence!.sha256.slice(0, 12)}`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    },
  });

  return (
    <section aria-labelledby={headingId} className="min-w-0 space-y-2">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <h4 id={headingId} className="text-sm font-semibold text-slate-700">
          {title}
        </h4>
        {evidence ? (
          <>
            <span className="text-xs text-slate-600">{formatBytes(evidence.size_bytes)}</span>
            <span className="flex items-center gap-1 text-xs text-slate-600">
              sha256{" "}
              <code className="font-mono" title={evidence.sha256}>
                {evidence.sha256.slice(0, 16)}…
              </code>
              <CopyButton value={evidence.sha256} size="sm" label="Copy sha256" className="h-6 px-2 text-xs" />
            </span>
            {fetchable ? (
              <Button
                variant="secondary"
                size="sm"
                className="h-6 px-2 text-xs"
                disabled={download.isPending}
                onClick={() => download.mutate()}
              >
                <Download aria-hidden="true" />
                {download.isPending ? "Downloading…" : "Download"}
              </Button>
            ) : null}
          </>
        ) : null}
      </div>
      {!evidence ? <p className="text-sm text-slate-600">None recorded.</p> : null}
      {evidence && !fetchable ? <p className="text-sm text-slate-600">{emptyText}</p> : null}
      {fetchable && preview && !load ? (
        <p className="text-sm text-slate-600">Too large to preview here: download it.</p>
      ) : null}
      {load && shown.isPending ? <Loading what={title.toLowerCase()} /> : null}
      {shown.error ? <Alert problem={problemOf(shown.error)} /> : null}
      {download.error ? <Alert problem={problemOf(download.error)} /> : null}
      {load && shown.data ? (
        shown.data.text === null ? (
          <p className="text-sm text-slate-600">
            Binary content (<code className="font-mono text-xs">{shown.data.contentType}</code>): download it to read.
          </p>
        ) : (
          <>
            <pre
              aria-labelledby={headingId}
              tabIndex={0}
              className="max-h-72 overflow-auto rounded-md bg-slate-950 p-3 font-mono text-xs leading-relaxed whitespace-pre-wrap break-words text-slate-100 focus-visible:ring-2 focus-visible:ring-sky-600 focus-visible:outline-none"
            >
              {shown.data.text}
            </pre>
            {shown.data.shownBytes < evidence.size_bytes ? (
              <p className="text-xs text-slate-600">
                The first {formatBytes(shown.data.shownBytes)} of {formatBytes(evidence.size_bytes)}; download it for
                the rest.
              </p>
            ) : null}
          </>
        )
      ) : null}
    </section>
  );
}
