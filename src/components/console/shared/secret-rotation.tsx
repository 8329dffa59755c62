"use client";

import type { UseMutationOptions } from "@tanstack/react-query";
import { useId, useState, type ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { ConfirmAction } from "./confirm-action";
import { formatDateTime } from "./format";

/** Choices for how long the old secret keeps working after a rotation (seconds). */
export const OVERLAP_CHOICES: { seconds: number; label: string }[] = [
  { seconds: 0, label: "Stop the old secret now" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "24 hours" },
  { seconds: 7 * 86_400, label: "7 days (the maximum)" },
];

/** The overlap picker of a rotate-secret dialog. */
export function OverlapField({
  id,
  value,
  onChange,
  hint,
}: {
  id: string;
  value: number;
  onChange: (s: number) => void;
  hint: string;
}) {
  return (
    <div className="space-y-1.5 pb-3">
      <Label htmlFor={id}>Keep the old secret working for</Label>
      <Select
        id={id}
        value={String(value)}
        onChange={(e) => onChange(Number(e.target.value))}
        aria-describedby={`${id}-hint`}
      >
        {OVERLAP_CHOICES.map((c) => (
          <option key={c.seconds} value={c.seconds}>
            {c.label}
          </option>
        ))}
      </Select>
      <p id={`${id}-hint`} className="text-xs text-slate-600">
        {hint}
      </p>
    </div>
  );
}

/**
 * Rotation state of a secret: the current one (never expires) and, during a
 * rotation's overlap, the previous one with its expiry. Never the secret itself.
 */
export function SecretState({
  rotatedAt,
  previousExpiresAt,
}: {
  rotatedAt: string | null;
  previousExpiresAt: string | null;
}) {
  return (
    <div className="space-y-1 text-xs">
      <div>
        <Badge tone="success">Current</Badge>{" "}
        <span className="text-slate-600">
          {rotatedAt ? `since ${formatDateTime(rotatedAt)}` : "since creation"}, no expiry
        </span>
      </div>
      {previousExpiresAt ? (
        <div>
          <Badge tone="warning">Previous</Badge>{" "}
          <span className="text-slate-600">
            works until <time dateTime={previousExpiresAt}>{formatDateTime(previousExpiresAt)}</time>
          </span>
        </div>
      ) : null}
    </div>
  );
}

type TRotationCopy = {
  /** What is rotated, for the dialog's title: "client secret", "signing secret". */
  secret: string;
  /** What happens on rotation, e.g. `"shop" gets a new secret, shown once.` */
  rotateDescription: ReactNode;
  /** The overlap hint: what happens with no overlap, and with one. */
  overlapHint: (seconds: number) => string;
  revokePreviousTitle: ReactNode;
  revokePreviousDescription: ReactNode;
  revokePreviousLabel?: ReactNode;
  revokePreviousPending?: ReactNode;
};

/**
 * The one secret-rotation flow (service identities, webhook endpoints):
 * "Rotate secret" asks how long the old secret keeps working and shows the new
 * one once (via `onRotated`); during the overlap "Revoke previous secret" ends
 * it early, and rotating again waits until the overlap is over.
 */
export function SecretRotationActions<
  TRotated,
  TRotateError,
  TRotateVars,
  TRotateCtx,
  TRevoked,
  TRevokeError,
  TRevokeVars,
  TRevokeCtx,
>({
  subject,
  previousExpiresAt,
  defaultOverlap = 0,
  rotate,
  rotateVariables,
  onRotated,
  revokePrevious,
  revokePreviousVariables,
  onChanged,
  copy,
}: {
  /** The row's name, for screen readers ("Rotate secret of shop"). */
  subject: string;
  previousExpiresAt: string | null;
  /** The overlap the dialog starts with, in seconds. */
  defaultOverlap?: number;
  rotate: UseMutationOptions<TRotated, TRotateError, TRotateVars, TRotateCtx>;
  rotateVariables: (overlapSeconds: number) => TRotateVars;
  onRotated: (data: TRotated) => unknown;
  revokePrevious: UseMutationOptions<TRevoked, TRevokeError, TRevokeVars, TRevokeCtx>;
  revokePreviousVariables: TRevokeVars;
  /** After either action (invalidate the list). */
  onChanged: () => unknown;
  copy: TRotationCopy;
}) {
  const id = useId();
  const [overlap, setOverlap] = useState(defaultOverlap);
  return (
    <>
      <ConfirmAction
        mutation={rotate}
        variables={() => rotateVariables(overlap)}
        onOpen={() => setOverlap(defaultOverlap)}
        onDone={async (data) => {
          await onRotated(data);
          await onChanged();
        }}
        label="Rotate secret"
        srLabel={`of ${subject}`}
        variant="secondary"
        disabled={previousExpiresAt !== null}
        hint={
          previousExpiresAt ? "Revoke the previous secret (or wait until it expires) before rotating again" : undefined
        }
        title={`Rotate the ${copy.secret}?`}
        description={copy.rotateDescription}
        confirmLabel="Rotate secret"
        pendingLabel="Rotating…"
        confirmVariant="primary"
      >
        <OverlapField id={`${id}-overlap`} value={overlap} onChange={setOverlap} hint={copy.overlapHint(overlap)} />
      </ConfirmAction>
      {previousExpiresAt ? (
        <ConfirmAction
          mutation={revokePrevious}
          variables={revokePreviousVariables}
          onDone={onChanged}
          label="Revoke previous secret"
          srLabel={`of ${subject}`}
          variant="secondary"
          title={copy.revokePreviousTitle}
          description={copy.revokePreviousDescription}
          confirmLabel={copy.revokePreviousLabel ?? "Revoke"}
          pendingLabel={copy.revokePreviousPending ?? "Revoking…"}
          confirmVariant="danger"
        />
      ) : null}
    </>
  );
}
