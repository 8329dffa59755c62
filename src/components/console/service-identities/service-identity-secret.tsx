"use client";

import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";
import { OneTimeSecret } from "../shared/one-time-secret";

export type TIdentity = inferRouterOutputs<AppRouter>["serviceIdentities"]["list"]["items"][number];
export type TEnvironment = NonNullable<TIdentity["environment_type"]>;
export const ENVIRONMENTS: TEnvironment[] = ["preview", "staging", "production"];
export type TIdentitySecret = { title: string; clientId: string; secret: string };

/** The one-time client secret of a new or rotated identity, with its client id and how to get a token. */
export function IdentitySecret({ shown, onDone }: { shown: TIdentitySecret; onDone: () => void }) {
  return (
    <OneTimeSecret
      title={shown.title}
      warning="Copy the client secret now: it will not be shown again, and Capstan keeps only its hash. Store it in your secret manager; anyone holding it can call the Bridge as this identity."
      fields={[
        { id: "si-client-id", label: "Client ID", value: shown.clientId, copyLabel: "Copy client id" },
        { id: "si-client-secret", label: "Client secret", value: shown.secret, copyLabel: "Copy client secret" },
      ]}
      note={
        <>
          Get a Bridge token: <code className="font-mono">POST /v1/oauth/token</code> with{" "}
          <code className="font-mono">grant_type=client_credentials</code> and the client ID and secret (HTTP Basic).
          Tokens last 10 minutes.
        </>
      }
      onDone={onDone}
    />
  );
}
