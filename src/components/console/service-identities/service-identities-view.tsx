"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import { AdminOnly } from "../shared/admin-only";
import { ConfirmAction } from "../shared/confirm-action";
import { PageHeader } from "../shared/page-header";
import { RelativeTime } from "../shared/relative-time";
import { RenameButton } from "../shared/rename-dialog";
import { actionsColumn, type TColumn } from "../shared/resource-table";
import { SecretRotationActions, SecretState } from "../shared/secret-rotation";
import { StatusChip } from "../shared/status-chip";
import { TableCard } from "../shared/table-card";
import { workspaceHref } from "../shell/nav-config";
import { CreateIdentityForm } from "./create-identity-form";
import { IMMUTABLE_NOTE, PermissionChips } from "./permissions-field";
import { IdentitySecret, type TIdentity, type TIdentitySecret } from "./service-identity-secret";

const ROTATION_COPY = {
  secret: "client secret",
  overlapHint: (overlap: number) =>
    overlap === 0
      ? "The current secret and every Bridge token obtained with it stop working at once."
      : "Until then both secrets get tokens; tokens obtained with the old one live until they expire (10 minutes). You can revoke the old secret early.",
  revokePreviousTitle: "Revoke the previous client secret?",
};

function IdentitiesCard({ ws, onSecret }: { ws: string; onSecret: (s: TIdentitySecret) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useInfiniteQuery(
    trpc.serviceIdentities.list.infiniteQueryOptions(
      { ws, limit: 50, order: "desc" },
      { getNextPageParam: (p) => p.next_cursor ?? undefined },
    ),
  );
  const products = useQuery(trpc.source.listProducts.queryOptions({ ws, limit: 200, order: "desc" }));
  const productName = new Map((products.data?.items ?? []).map((p) => [p.id, p.name]));
  const invalidate = () => queryClient.invalidateQueries(trpc.serviceIdentities.list.pathFilter());
  const rename = useMutation(trpc.serviceIdentities.rename.mutationOptions({ onSuccess: () => invalidate() }));

  const columns: TColumn<TIdentity>[] = [
    {
      key: "name",
      label: "Name",
      rowHeader: true,
      cell: (si) => (
        <div>
          <div className="font-medium break-words">{si.name}</div>
          <code className="font-mono text-xs font-normal break-all text-slate-600">{si.client_id}</code>
        </div>
      ),
    },
    {
      key: "status",
      label: "Status",
      cell: (si) => (
        <div className="space-y-1">
          <StatusChip
            status={si.status}
            tones={{ active: "success", revoked: "danger" }}
            note={si.revoked_at ? <RelativeTime iso={si.revoked_at} /> : null}
          />
          {si.status === "active" ? (
            <SecretState rotatedAt={si.secret_rotated_at} previousExpiresAt={si.previous_secret_expires_at} />
          ) : null}
        </div>
      ),
    },
    {
      key: "scope",
      label: "Scope",
      priority: 2,
      className: "text-xs break-all",
      cell: (si) => (
        <div>
          <div>
            Product{" "}
            {si.product_id ? (
              <Link href={workspaceHref(ws, `/products/${si.product_id}`)} className="underline underline-offset-2">
                {productName.get(si.product_id) ?? si.product_id}
              </Link>
            ) : (
              "—"
            )}
          </div>
          <div className="text-slate-600">Environment: {si.environment_type ?? "any"}</div>
          {si.federation ? (
            <div className="text-slate-600">
              OIDC {si.federation.issuer} (sub {si.federation.subject}, aud {si.federation.audience})
            </div>
          ) : null}
        </div>
      ),
    },
    {
      key: "permissions",
      label: "Bridge permissions",
      priority: 2,
      cell: (si) => <PermissionChips permissions={si.permissions} />,
    },
    { key: "last-token", label: "Last token", priority: 3, cell: (si) => <RelativeTime iso={si.last_token_at} /> },
    actionsColumn((si) => (
      <>
        <RenameButton
          what="service identity"
          current={si.name}
          mutation={{ ...rename, mutate: (name, opts) => rename.mutate({ ws, svc: si.id, name }, opts) }}
        />
        {si.status === "active" ? (
          <>
            <SecretRotationActions
              subject={si.name}
              previousExpiresAt={si.previous_secret_expires_at}
              rotate={trpc.serviceIdentities.rotateSecret.mutationOptions()}
              rotateVariables={(overlap) => ({ ws, svc: si.id, previous_secret_expires_in: overlap })}
              onRotated={(data) =>
                onSecret({
                  title: `New client secret for "${data.name}"`,
                  clientId: data.client_id,
                  secret: data.client_secret! /* always present outside an idempotent replay */,
                })
              }
              revokePrevious={trpc.serviceIdentities.revokePreviousSecret.mutationOptions()}
              revokePreviousVariables={{ ws, svc: si.id }}
              onChanged={invalidate}
              copy={{
                ...ROTATION_COPY,
                rotateDescription: `"${si.name}" gets a new secret, shown once. Choose how long the current one keeps working, so running apps can switch without downtime.`,
                revokePreviousDescription: `The previous secret of "${si.name}" stops working now, and so do Bridge tokens obtained with it (within seconds).`,
              }}
            />
            <ConfirmAction
              mutation={trpc.serviceIdentities.revoke.mutationOptions()}
              variables={{ ws, svc: si.id }}
              onDone={invalidate}
              label="Revoke"
              srLabel={si.name}
              title="Revoke this service identity?"
              description={`"${si.name}" can no longer get tokens, and its existing Bridge tokens stop working within seconds. This cannot be undone.`}
              confirmLabel="Revoke"
              pendingLabel="Revoking…"
            />
          </>
        ) : null}
      </>
    )),
  ];

  return (
    <TableCard
      title="Service identities"
      description={IMMUTABLE_NOTE}
      query={list}
      what="service identities"
      emptyText="No service identities yet."
      caption="Service identities of this workspace"
      columns={columns}
    />
  );
}

/** Service identities of a workspace: create (secret shown once), rotate, revoke. Owners and admins only. */
export function ServiceIdentitiesView({ ws }: { ws: string }) {
  const [secret, setSecret] = useState<TIdentitySecret | null>(null);
  return (
    <>
      <PageHeader
        title="Service identities"
        description="Machine credentials for calling the Bridge: OAuth client credentials or OIDC token exchange (POST /v1/oauth/token)."
      />
      <div className="space-y-6">
        <AdminOnly ws={ws} what="see and manage service identities">
          <>
            {secret ? <IdentitySecret shown={secret} onDone={() => setSecret(null)} /> : null}
            <CreateIdentityForm ws={ws} onSecret={setSecret} />
            <IdentitiesCard ws={ws} onSecret={setSecret} />
          </>
        </AdminOnly>
      </div>
    </>
  );
}
