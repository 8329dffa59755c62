"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TEventType } from "@/server/platform/outbox";
import { ALL, EVENT_LABEL, EVENT_TYPES } from "./event-types";
import { TextField } from "../shared/text-field";

/** "Add endpoint": URL, optional name and description, and the event types it receives. */
export function CreateEndpointForm({
  ws,
  onSecret,
}: {
  ws: string;
  onSecret: (title: string, secret: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [name, setName] = useState("");
  const [all, setAll] = useState(true);
  const [types, setTypes] = useState<TEventType[]>([]);
  const [clientError, setClientError] = useState<string | null>(null);
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: async (data) => {
        onSecret(`Endpoint ${data.url} created`, data.secret! /* always present outside an idempotent replay */);
        setUrl("");
        setDescription("");
        setTypes([]);
        setAll(true);
        await queryClient.invalidateQueries(trpc.webhooks.list.pathFilter());
      },
    }),
  );

  function toggle(t: TEventType, on: boolean) {
    setTypes((prev) => (on ? [...prev, t] : prev.filter((x) => x !== t)));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    create.reset();
    if (!all && types.length === 0) {
      setClientError("Choose at least one event type, or all events.");
      return;
    }
    setClientError(null);
    create.mutate({
      ws,
      url: url.trim(),
      event_types: all ? [ALL] : types,
      ...(description.trim() ? { description: description.trim() } : {}),
      ...(name.trim() ? { name: name.trim() } : {}),
    });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Add endpoint</CardTitle>
        <CardDescription>
          Events are POSTed as CloudEvents 1.0 JSON, signed per Standard Webhooks, and retried with backoff; what still
          fails ends up in dead letters. An endpoint answering 410 Gone is disabled.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="space-y-4" noValidate>
          <div className="grid gap-3 sm:grid-cols-2">
            <TextField
              id="webhook-url"
              label="Endpoint URL"
              name="url"
              type="url"
              required
              autoComplete="off"
              placeholder="https://example.com/webhooks/capstan"
              value={url}
              aria-invalid={problemOf(create.error)?.errors?.some((x) => x.path === "/url") ? true : undefined}
              onValue={setUrl}
            />
            <TextField
              id="webhook-name"
              label="Name (optional)"
              name="name"
              maxLength={100}
              autoComplete="off"
              placeholder="Unique in the workspace; default: the description or host"
              value={name}
              onValue={setName}
            />
            <TextField
              id="webhook-description"
              label="Description (optional)"
              name="description"
              maxLength={256}
              autoComplete="off"
              value={description}
              onValue={setDescription}
            />
          </div>
          <fieldset className="space-y-2">
            <legend className="text-sm font-medium text-slate-800">Event types</legend>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                name="all_events"
                checked={all}
                onChange={(e) => setAll(e.target.checked)}
                className="size-4"
              />
              <span>
                All events <code className="font-mono text-xs text-slate-600">*</code> (including types added later)
              </span>
            </label>
            <div className="grid gap-1.5 sm:grid-cols-2 lg:grid-cols-3">
              {EVENT_TYPES.map((t) => (
                <label key={t} className={`flex items-center gap-2 text-sm ${all ? "text-slate-600" : ""}`}>
                  <input
                    type="checkbox"
                    name="event_types"
                    value={t}
                    disabled={all}
                    checked={all || types.includes(t)}
                    onChange={(e) => toggle(t, e.target.checked)}
                    className="size-4"
                  />
                  <span>
                    {EVENT_LABEL[t]} <code className="font-mono text-xs text-slate-600">{t}</code>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
          <Button type="submit" disabled={create.isPending || url.trim() === ""}>
            <Plus aria-hidden="true" />
            {create.isPending ? "Adding…" : "Add endpoint"}
          </Button>
        </form>
        {clientError ? <Alert problem={{ detail: clientError }} title="Not added" /> : null}
        {create.error ? <Alert problem={problemOf(create.error)} /> : null}
      </CardContent>
    </Card>
  );
}
