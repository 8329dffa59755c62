"use client";

import { useMutation } from "@tanstack/react-query";
import { FlaskConical, Send } from "lucide-react";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { formatMs } from "./format";

const pre = "max-h-48 overflow-auto rounded bg-slate-100 p-2 text-xs break-all whitespace-pre-wrap";

function Headers({ headers }: { headers: Record<string, string> }) {
  return (
    <pre className={pre}>
      {Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join("\n")}
    </pre>
  );
}

/** "Send test event": a signed webhook.test event to this endpoint, then what was sent and what came back. */
export function WebhookTestButton({ ws, wb, label }: { ws: string; wb: string; label: string }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const send = useMutation(trpc.webhooks.test.mutationOptions());
  const r = send.data;
  return (
    <>
      <Button
        variant="secondary"
        size="sm"
        onClick={() => {
          send.reset();
          setOpen(true);
          send.mutate({ ws, wb });
        }}
      >
        <Send aria-hidden="true" />
        Send test event<span className="sr-only"> to {label}</span>
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title="Test event"
        className="max-w-2xl"
        description="A signed webhook.test event, sent to this endpoint only and not retried."
        footer={
          <Button variant="secondary" onClick={() => setOpen(false)}>
            Close
          </Button>
        }
      >
        {send.isPending ? (
          <p role="status" className="text-sm">
            Sending…
          </p>
        ) : null}
        {send.error ? <Alert problem={problemOf(send.error)} /> : null}
        {r ? (
          <div className="space-y-3 text-sm">
            {r.delivered ? (
              <Alert tone="success">
                Delivered: the endpoint answered {r.response?.status} in {formatMs(r.duration_ms)}.
              </Alert>
            ) : (
              <Alert tone="danger" title="Not delivered">
                {r.error} ({formatMs(r.duration_ms)})
              </Alert>
            )}
            <h3 className="font-semibold">Request</h3>
            <p className="text-xs break-all">POST {r.request.url}</p>
            <Headers headers={r.request.headers} />
            <pre className={pre}>{r.request.body}</pre>
            <h3 className="font-semibold">Response</h3>
            {r.response ? (
              <>
                <p className="text-xs">Status {r.response.status}</p>
                <Headers headers={r.response.headers} />
                <pre className={pre}>
                  {r.response.body_excerpt || "(empty body)"}
                  {r.response.body_truncated ? "\n… (first 2048 bytes)" : ""}
                </pre>
              </>
            ) : (
              <p className="text-xs">No answer.</p>
            )}
          </div>
        ) : null}
      </Dialog>
    </>
  );
}

/** What a binding's test does, by capability (docs/decisions.md "Test buttons"). */
const TEST_DOES: Record<string, string> = {
  "ai.generate":
    "One call with max_tokens 1 through this binding. It is audited as a test and charged to no budget; the provider may bill its tokens.",
  "email.send":
    "Connects to the SMTP server, says EHLO (STARTTLS when offered) and signs in with the binding's credential. No mail is sent. Audited as a test.",
  "storage.object":
    "Writes, reads back and deletes a 16-byte probe object under _capstan-test/ in the binding's bucket. Audited as a test and charged to no budget.",
};
export const TESTABLE_CAPABILITIES = Object.keys(TEST_DOES);

/** A binding's "Test": the cheapest real call through it, then the latency and the answer or the error in words. */
export function BindingTestButton({
  ws,
  bind,
  label,
  capability = "ai.generate",
}: {
  ws: string;
  bind: string;
  label: string;
  capability?: string;
}) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const test = useMutation(trpc.bindings.test.mutationOptions());
  const r = test.data;
  return (
    <>
      <Button
        variant="secondary"
        size="sm"
        onClick={() => {
          test.reset();
          setOpen(true);
          test.mutate({ ws, bind });
        }}
      >
        <FlaskConical aria-hidden="true" />
        Test<span className="sr-only"> binding {label}</span>
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={`Test binding ${label}`}
        description={TEST_DOES[capability] ?? TEST_DOES["ai.generate"]}
        footer={
          <Button variant="secondary" onClick={() => setOpen(false)}>
            Close
          </Button>
        }
      >
        {test.isPending ? (
          <p role="status" className="text-sm">
            Calling the provider…
          </p>
        ) : null}
        {test.error ? <Alert problem={problemOf(test.error)} /> : null}
        {r ? (
          r.ok ? (
            <Alert tone="success" title={`${r.provider} answered in ${formatMs(r.duration_ms)}`}>
              {r.model ? (
                <>
                  Model {r.model}: “{r.answer}”{r.tokens ? ` (${r.tokens.input + r.tokens.output} tokens)` : ""}
                </>
              ) : (
                r.answer
              )}
            </Alert>
          ) : (
            <Alert tone="danger" title={`The test failed after ${formatMs(r.duration_ms)}`}>
              {r.error}
            </Alert>
          )
        ) : null}
      </Dialog>
    </>
  );
}
