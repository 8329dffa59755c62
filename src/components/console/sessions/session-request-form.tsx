"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Send } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { inputClass, Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC, useTRPCClient } from "@/lib/trpc/client";
import type { TInvocation, TInvocationInput } from "@/server/domain/sessions/sessions.contract";
import { useUploadText } from "../shared/evidence";
import { formatMs } from "../shared/format";
import { OutcomeBadge } from "./session-status";
import { requestNumber } from "./invocation-details";
import { Field } from "../shared/field";

type TMethod = TInvocationInput["method"];
const METHODS: TMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
/** GET and HEAD carry no body; the others may. */
const takesBody = (m: TMethod) => m !== "GET" && m !== "HEAD";

/** The server's rules for `path` (sessions.contract.ts): 1-2048 characters, starts with /, no ? or #. */
export function pathError(path: string): string | null {
  if (!path) return "Enter a path, e.g. /";
  if (!path.startsWith("/")) return "The path must start with /.";
  if (path.includes("?") || path.includes("#"))
    return "The path must not contain ? or # (query strings are not sent from here).";
  if (path.length > 2048) return "The path must be at most 2048 characters.";
  return null;
}

const textareaClass = cn(inputClass, "h-auto min-h-24 py-2 font-mono text-xs");

function sentSummary(inv: TInvocation): string {
  const exe = inv.execution;
  const ran = exe ? `, HTTP ${exe.result.http_status ?? "no answer"} in ${formatMs(exe.usage.duration_ms)}` : "";
  return `Sent as ${requestNumber(inv)}: ${inv.admission?.outcome ?? "not decided"}${ran}.`;
}

/**
 * "Send a request": a method, a path (checked here as the server checks it)
 * and, for methods with a body, optional text that is uploaded first
 * (POST /v1/workspaces/{ws}/uploads) so the invocation can name it as
 * body_evidence; `canUpload` (developer or above, as uploads need) offers
 * the body field. The new invocation shows up in the table below.
 */
export function SessionRequestForm({ ws, ses, canUpload }: { ws: string; ses: string; canUpload: boolean }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const uploadText = useUploadText(ws);
  const [method, setMethod] = useState<TMethod>("GET");
  const [path, setPath] = useState("/");
  const [body, setBody] = useState("");
  const [touched, setTouched] = useState(false);
  const invalid = pathError(path);
  const withBody = canUpload && takesBody(method) && body !== "";
  const send = useMutation({
    mutationFn: async () => {
      const body_evidence = withBody ? await uploadText(body) : null;
      return client.sessions.invoke.mutate({ ses, kind: "http_request", method, path, body_evidence });
    },
    onSuccess: () => queryClient.invalidateQueries(trpc.sessions.invocations.pathFilter()),
  });
  const problem = problemOf(send.error);

  function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (!invalid) send.mutate();
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Send a request</CardTitle>
        <CardDescription>
          Goes to the app through this session: admitted by the five checks, then run, with its answer kept as evidence.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        <form onSubmit={submit} className="space-y-3" noValidate>
          <div className="flex flex-wrap items-start gap-3">
            <Field id="request-method" label="Method" className="w-32">
              <Select
                id="request-method"
                name="method"
                value={method}
                onChange={(e) => setMethod(e.target.value as TMethod)}
              >
                {METHODS.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </Select>
            </Field>
            <Field id="request-path" label="Path" className="min-w-64 flex-1">
              <Input
                id="request-path"
                name="path"
                autoComplete="off"
                spellCheck={false}
                maxLength={2048}
                className="font-mono text-xs"
                value={path}
                onChange={(e) => setPath(e.target.value)}
                onBlur={() => setTouched(true)}
                aria-invalid={
                  (touched && invalid) || problem?.errors?.some((x) => x.path === "/path") ? true : undefined
                }
                aria-describedby="request-path-hint"
              />
              <p
                id="request-path-hint"
                className={touched && invalid ? "text-xs text-rose-700" : "text-xs text-slate-600"}
              >
                {touched && invalid ? invalid : "Starts with /, without a query string or fragment."}
              </p>
            </Field>
          </div>
          {takesBody(method) && !canUpload ? (
            <p className="text-xs text-slate-600">
              The request goes without a body: a body is uploaded first, and uploads need the developer role or higher.
            </p>
          ) : null}
          {takesBody(method) && canUpload ? (
            <Field id="request-body" label="Body (optional)">
              <textarea
                id="request-body"
                name="body"
                rows={4}
                spellCheck={false}
                className={textareaClass}
                value={body}
                onChange={(e) => setBody(e.target.value)}
                aria-describedby="request-body-hint"
              />
              <p id="request-body-hint" className="text-xs text-slate-600">
                Sent as the request body, uploaded first as evidence (the upload route takes a short-lived API token the
                console creates in your name).
              </p>
            </Field>
          ) : null}
          <Button type="submit" disabled={send.isPending}>
            <Send aria-hidden="true" />
            {send.isPending ? "Sending…" : "Send request"}
          </Button>
        </form>
        {problem ? <Alert title="The request was not sent" problem={problem} /> : null}
        {send.data && !send.isPending && !send.error ? (
          <Alert
            tone={
              send.data.admission?.outcome === "admitted"
                ? "success"
                : send.data.admission?.outcome === "pending"
                  ? "info"
                  : "warning"
            }
          >
            <span className="flex flex-wrap items-center gap-2">
              <OutcomeBadge admission={send.data.admission} />
              {sentSummary(send.data)}
            </span>
          </Alert>
        ) : null}
      </CardContent>
    </Card>
  );
}
