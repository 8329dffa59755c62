"use client";

import { useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useId, useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import type { AppRouter } from "@/server/trpc/root";
import { ConfirmAction } from "../shared/confirm-action";
import { formatDateTime } from "../shared/format";
import { OneTimeSecret } from "../shared/one-time-secret";
import { OverlapField } from "../shared/secret-rotation";
import { StatusChip } from "../shared/status-chip";

type TResource = inferRouterOutputs<AppRouter>["managedResources"]["list"]["items"][number];

/** The API's default overlap (credentials.contract DEFAULT_OVERLAP_SECONDS); the choices stop at its maximum, 7 days. */
const DEFAULT_OVERLAP = 86_400;

const CRED_TONES = { active: "success", retiring: "warning", revoking: "neutral" } as const;
const CRED_LABELS = { active: "Active", retiring: "Previous", revoking: "Being dropped" } as const;

/** The running deployments being replaced one at a time, in words. */
export function RestartsProgress({ ws, r }: { ws: string; r: TResource }) {
  if (!r.restarts) return null;
  const { reason, in_progress: current, queued } = r.restarts;
  const dep = (id: string) => (
    <Link key={id} className="underline" href={`/console/w/${ws}/deployments/${id}`}>
      {id}
    </Link>
  );
  return (
    <p className="pt-2 text-sm text-sky-900" role="status">
      Restarting the app&apos;s deployments one at a time ({reason}):{" "}
      {current ? <>replacing {dep(current)} now</> : "starting"}
      {queued.length ? (
        <>
          ; {queued.length} more to go after it (
          {queued.map((id, i) => (
            <span key={id}>
              {i ? ", " : ""}
              {dep(id)}
            </span>
          ))}
          )
        </>
      ) : (
        "; none after it"
      )}
      .
    </p>
  );
}

/** A postgres resource's login roles (never a password), rotation with an overlap, and the read-only credential. */
export function CredentialsPanel({ ws, r, canWrite }: { ws: string; r: TResource; canWrite: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const id = useId();
  const [overlap, setOverlap] = useState(DEFAULT_OVERLAP);
  const [secret, setSecret] = useState<{ title: string; url: string; warning: string } | null>(null);
  const invalidate = () => queryClient.invalidateQueries(trpc.managedResources.pathFilter());
  const previous = r.credentials.find((c) => c.status === "retiring") ?? null;
  const readOnly = r.credentials.find((c) => c.access === "read_only" && c.status === "active") ?? null;
  const changing = r.credentials.some((c) => c.status === "revoking");
  const usable = r.status === "available";
  return (
    <div className="space-y-2 pt-2 text-sm">
      {r.credentials.length ? (
        <ul className="space-y-1" aria-label={`Login roles of ${r.name}`}>
          {r.credentials.map((c) => (
            <li key={c.username} className="flex flex-wrap items-center gap-2 text-xs">
              <code className="font-mono">{c.username}</code>
              <span className="text-slate-600">{c.access === "read_only" ? "read-only" : "read-write"}</span>
              <StatusChip status={c.status} tones={CRED_TONES} labels={CRED_LABELS} busy={c.status === "revoking"} />
              {c.status === "retiring" && c.expires_at ? (
                <span className="text-amber-900">
                  Previous credential ends at <time dateTime={c.expires_at}>{formatDateTime(c.expires_at)}</time>
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-xs text-slate-600">No login role yet.</p>
      )}
      {canWrite && usable ? (
        <div className="flex flex-wrap gap-2">
          <ConfirmAction
            mutation={trpc.managedResources.credentials.rotate.mutationOptions()}
            variables={() => ({ ws, mres: r.id, previous_secret_expires_in: overlap })}
            onOpen={() => setOverlap(DEFAULT_OVERLAP)}
            onDone={async (res) => {
              // A replayed request answers without the secret (it is shown once): nothing to show then.
              if (res.secret)
                setSecret({
                  title: `New password of ${r.name}`,
                  url: res.secret.url,
                  warning: `This password is shown once and never again. ${res.running_deployments.action === "restarting" ? `The app's ${res.running_deployments.deployment_ids.length} running deployment(s) restart one at a time to receive it.` : "New deployments receive it automatically."}`,
                });
              await invalidate();
            }}
            label="Rotate password"
            srLabel={`of ${r.name}`}
            variant="secondary"
            disabled={previous !== null || changing || !r.attachment}
            hint={
              previous
                ? "End the previous credential (or wait until it ends) before rotating again"
                : !r.attachment
                  ? "Attach it first: rotation rolls the password of the app using it"
                  : undefined
            }
            title={`Rotate the password of ${r.name}?`}
            description="A new login role is created and its password shown once; the app's running deployments restart one at a time to receive it. The old role keeps working for the overlap you choose, then it is dropped."
            confirmLabel="Rotate password"
            pendingLabel="Rotating…"
            confirmVariant="primary"
          >
            <OverlapField
              id={`${id}-overlap`}
              value={overlap}
              onChange={setOverlap}
              hint={
                overlap === 0
                  ? "The old password stops working within seconds: use this for a leaked password."
                  : "Both passwords work until then; the old role's sessions are then ended."
              }
            />
          </ConfirmAction>
          {previous ? (
            <ConfirmAction
              mutation={trpc.managedResources.credentials.revokePrevious.mutationOptions()}
              variables={{ ws, mres: r.id }}
              onDone={invalidate}
              label="End now"
              srLabel={`the previous credential of ${r.name}`}
              variant="secondary"
              title={`End the previous credential ${previous.username} now?`}
              description="The old role is refused at once, its open sessions are ended and it is dropped. Anything still using the old password loses its connection."
              confirmLabel="End now"
              pendingLabel="Ending…"
              confirmVariant="danger"
            />
          ) : null}
          {readOnly ? (
            <ConfirmAction
              mutation={trpc.managedResources.credentials.revokeReadOnly.mutationOptions()}
              variables={{ ws, mres: r.id }}
              onDone={invalidate}
              label="Revoke read-only credential"
              srLabel={`of ${r.name}`}
              title={`Revoke the read-only credential ${readOnly.username}?`}
              description="It is refused at once, its sessions are ended and its role is dropped. Create a new one at any time."
              confirmLabel="Revoke"
              pendingLabel="Revoking…"
            />
          ) : (
            <ConfirmAction
              mutation={trpc.managedResources.credentials.createReadOnly.mutationOptions()}
              variables={{ ws, mres: r.id }}
              onDone={async (res) => {
                if (res.secret)
                  setSecret({
                    title: `Read-only credential of ${r.name}`,
                    url: res.secret.url,
                    warning:
                      "This password is shown once and never again. It can read every table (SELECT only); no app receives it.",
                  });
                await invalidate();
              }}
              label="Create read-only credential"
              srLabel={`of ${r.name}`}
              variant="secondary"
              disabled={changing}
              title={`Create a read-only credential for ${r.name}?`}
              description="A second login role that can SELECT from every table, including later ones; its password is shown once. For analytics or a support tool, never for the app."
              confirmLabel="Create"
              pendingLabel="Creating…"
              confirmVariant="primary"
            />
          )}
        </div>
      ) : null}
      {secret ? (
        <OneTimeSecret
          title={secret.title}
          warning={secret.warning}
          label="Connection URL"
          value={secret.url}
          copyLabel="Copy connection URL"
          onDone={() => setSecret(null)}
        />
      ) : null}
    </div>
  );
}
