"use client";

import { useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TCapabilityContract, TRevision } from "@/server/domain/source/source.contract";
import type { TContractRejectionReason } from "@/server/domain/source/source.types";
import { formatDateTime, formatUnits } from "../shared/format";
import { Loading } from "../shared/page-header";
import { Code } from "./revision-descriptor";

/* ------------------------------------------------------------------------------------------------
 * Capability contract
 * ---------------------------------------------------------------------------------------------- */

const CONTRACT_REASON: Record<TContractRejectionReason, string> = {
  unknown_capability:
    "capabilities.json names a capability the platform does not offer (only ai.generate, storage.object, data.kv and email.send exist).",
  unknown_action: "capabilities.json asks for an action its capability does not have.",
  scope_invalid: "A capability's scope is missing a field or has a value outside what is allowed.",
  scope_widened: "The contract asks for more than the product's current contract, and the widening was not approved.",
  owner_not_supported:
    "A capability names a credential owner it does not support (data.kv is owned by the platform; the others by the workspace).",
  contract_too_large: "capabilities.json is too large (more than 64 KiB or more than 32 capabilities).",
};

function scopeValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(scopeValue).join(", ");
  if (typeof v === "number") return formatUnits(v);
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

function ContractTable({ contract }: { contract: TCapabilityContract }) {
  return (
    <div className="space-y-3">
      <dl className="grid gap-x-6 gap-y-2 px-5 pt-4 text-sm sm:grid-cols-2">
        <div className="min-w-0">
          <dt className="text-slate-600">Contract hash</dt>
          <dd>
            <Code>{contract.contract_hash}</Code>
          </dd>
        </div>
        <div>
          <dt className="text-slate-600">Ready since</dt>
          <dd>{formatDateTime(contract.confirmed_at)}</dd>
        </div>
      </dl>
      {contract.capabilities.length === 0 ? (
        <p className="px-5 pb-4 text-sm text-slate-600">This revision asks for no capabilities.</p>
      ) : (
        <Table>
          <TableCaption>Capabilities this revision may use</TableCaption>
          <TableHeader>
            <TableRow>
              <TableHead>Capability</TableHead>
              <TableHead>Required</TableHead>
              <TableHead>Actions</TableHead>
              <TableHead>Scope</TableHead>
              <TableHead>Credential owner</TableHead>
              <TableHead>Provider policy</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {contract.capabilities.map((c) => (
              <TableRow key={c.id} className="align-top">
                <TableHead
                  scope="row"
                  className="py-3 font-mono text-xs font-medium tracking-normal text-slate-900 normal-case"
                >
                  {c.id}
                </TableHead>
                <TableCell>{c.required ? "Yes" : "No"}</TableCell>
                <TableCell>
                  <ul className="flex flex-wrap gap-1">
                    {c.actions.map((a) => (
                      <li key={a}>
                        <Badge>{a}</Badge>
                      </li>
                    ))}
                  </ul>
                </TableCell>
                <TableCell>
                  <ul className="space-y-0.5 text-xs">
                    {Object.entries(c.scope).map(([k, v]) => (
                      <li key={k}>
                        <span className="font-mono text-slate-600">{k}</span>:{" "}
                        <span className="break-all">{scopeValue(v)}</span>
                      </li>
                    ))}
                  </ul>
                </TableCell>
                <TableCell>{c.credential_owner}</TableCell>
                <TableCell>
                  <ul className="space-y-0.5 text-xs">
                    <li>
                      <span className="text-slate-600">allow</span>:{" "}
                      {c.provider.allow.length ? c.provider.allow.join(", ") : "none"}
                    </li>
                    {c.provider.prefer ? (
                      <li>
                        <span className="text-slate-600">prefer</span>: {c.provider.prefer}
                      </li>
                    ) : null}
                    <li>
                      <span className="text-slate-600">fallback</span>:{" "}
                      {c.provider.fallback === "listed" ? "to the other allowed providers" : "none"}
                    </li>
                  </ul>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </div>
  );
}

function ContractRejected({ reason }: { reason: TContractRejectionReason }) {
  return (
    <Alert tone="danger" title="The capability contract was rejected">
      <p>{CONTRACT_REASON[reason] ?? "The contract in capabilities.json is not valid."}</p>
      <p className="text-xs opacity-75">
        Reason: <code className="font-mono">{reason}</code>. Fix capabilities.json at the repository root and freeze the
        product again.
      </p>
    </Alert>
  );
}

export function ContractCard({ ws, revision }: { ws: string; revision: TRevision }) {
  const trpc = useTRPC();
  const rejected = revision.capability_contract?.status === "rejected" ? revision.capability_contract.reason : null;
  const ready = !rejected && revision.descriptor_status === "confirmed";
  const contract = useQuery(
    trpc.source.capabilityContract.queryOptions({ workspace_id: ws, revision_id: revision.id }, { enabled: ready }),
  );
  const data = contract.data;

  return (
    <Card>
      <CardHeader>
        <CardTitle>Capability contract</CardTitle>
        <CardDescription>
          What this revision may ask of the platform, read from capabilities.json at the repository root.
        </CardDescription>
      </CardHeader>
      <CardContent className={ready && data && !("capability_contract" in data) ? "px-0 py-0" : undefined}>
        {rejected ? <ContractRejected reason={rejected} /> : null}
        {!rejected && revision.descriptor_status === "detected" ? (
          <Alert>The capability contract becomes ready when the descriptor is confirmed.</Alert>
        ) : null}
        {!rejected && revision.descriptor_status === "pending" ? (
          <p className="text-sm text-slate-600">The contract is read once the source is frozen.</p>
        ) : null}
        {!rejected && revision.descriptor_status === "unavailable" ? (
          <p className="text-sm text-slate-600">
            There is no contract: the source freeze did not produce a revision that can run.
          </p>
        ) : null}
        {ready && contract.isPending ? <Loading what="capability contract" /> : null}
        {ready && contract.error ? <Alert problem={problemOf(contract.error)} /> : null}
        {ready && data ? (
          "capability_contract" in data ? (
            <ContractRejected reason={data.capability_contract.reason} />
          ) : (
            <ContractTable contract={data} />
          )
        ) : null}
      </CardContent>
    </Card>
  );
}
