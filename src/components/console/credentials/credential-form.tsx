"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Lock } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { inputClass } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import { CAPABILITY_RULES, type TCapabilityId } from "@/server/domain/source/contract-rules";
import { CAPABILITY_IDS, lines } from "./credentials-view";
import { Field } from "../shared/field";
import { TextField } from "../shared/text-field";

const textareaClass = cn(inputClass, "h-auto min-h-20 py-2 font-mono text-xs");

/** `datetime-local` value (local time) -> ISO 8601 UTC with Z. */
function localToIso(value: string): string {
  return new Date(value).toISOString();
}
function isoToLocal(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** "Add credential": provider, capability, actions, scope, expiry and the write-only secret. */
export function CreateCredentialForm({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [provider, setProvider] = useState("");
  const [capability, setCapability] = useState<TCapabilityId>("ai.generate");
  const [actions, setActions] = useState<string[]>(["generate"]);
  const [scope, setScope] = useState("");
  const [expires, setExpires] = useState(() => isoToLocal(new Date(Date.now() + 90 * 86_400_000)));
  const [secret, setSecret] = useState("");
  const create = useMutation(
    trpc.credentials.create.mutationOptions({
      onSuccess: async () => {
        setProvider("");
        setScope("");
        await queryClient.invalidateQueries(trpc.credentials.list.pathFilter());
      },
      // The secret leaves the page once: success or failure, the field is cleared.
      onSettled: () => setSecret(""),
    }),
  );

  function pickCapability(id: TCapabilityId) {
    setCapability(id);
    setActions([...CAPABILITY_RULES[id].actions]);
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({
      ws,
      secret,
      provider: provider.trim(),
      capability,
      actions,
      scope: lines(scope),
      expires_at: localToIso(expires),
    });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Add credential</CardTitle>
        <CardDescription>
          The secret is encrypted at rest and is write-only: it is never shown again, not even to you. Bind the
          credential to a capability on the Provider bindings page.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="space-y-4" autoComplete="off">
          <div className="grid gap-3 sm:grid-cols-3">
            <TextField
              id="cred-provider"
              label="Provider"
              required
              maxLength={128}
              placeholder="openai, anthropic, smtp, s3…"
              value={provider}
              onValue={setProvider}
            />
            <Field id="cred-capability" label="Capability">
              <Select
                id="cred-capability"
                value={capability}
                onChange={(e) => pickCapability(e.target.value as TCapabilityId)}
              >
                {CAPABILITY_IDS.map((id) => (
                  <option key={id} value={id}>
                    {id}
                  </option>
                ))}
              </Select>
            </Field>
            <TextField
              id="cred-expires"
              label="Expires"
              type="datetime-local"
              required
              value={expires}
              onValue={setExpires}
            />
          </div>
          <fieldset className="space-y-2">
            <legend className="text-sm font-medium text-slate-800">Actions</legend>
            <div className="flex flex-wrap gap-4">
              {CAPABILITY_RULES[capability].actions.map((a) => (
                <label key={a} className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    className="size-4"
                    checked={actions.includes(a)}
                    onChange={(e) =>
                      setActions((prev) => (e.target.checked ? [...prev, a] : prev.filter((x) => x !== a)))
                    }
                  />
                  <code className="font-mono text-xs">{a}</code>
                </label>
              ))}
            </div>
          </fieldset>
          <div className="grid gap-3 sm:grid-cols-2">
            <Field id="cred-scope" label="Scope (one per line, optional)">
              <textarea
                id="cred-scope"
                className={textareaClass}
                placeholder={"models/gpt-*\nbucket/assets"}
                value={scope}
                onChange={(e) => setScope(e.target.value)}
              />
              <p className="text-xs text-slate-600">
                A trailing * covers every binding scope that starts with what precedes it.
              </p>
            </Field>
            <TextField
              id="cred-secret"
              label="Secret"
              hint="API key, SMTP password or access key. Never displayed after you save."
              type="password"
              required
              autoComplete="off"
              spellCheck={false}
              maxLength={16384}
              value={secret}
              onValue={setSecret}
            />
          </div>
          <Button type="submit" disabled={create.isPending || !secret || !provider.trim() || actions.length === 0}>
            <Lock aria-hidden="true" />
            {create.isPending ? "Saving…" : "Save credential"}
          </Button>
        </form>
        {create.error ? <Alert problem={problemOf(create.error)} /> : null}
        {create.data && !create.isPending && !create.error ? (
          <Alert tone="success">
            Credential <code className="font-mono">{create.data.id}</code> saved. Its secret is stored encrypted and
            will not be shown again.
          </Alert>
        ) : null}
      </CardContent>
    </Card>
  );
}
