"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { useTRPC } from "@/lib/trpc/client";
import { formatDateTime } from "../shared/format";
import { PageHeader } from "../shared/page-header";
import { QueryStates } from "../shared/query-states";

const TONE = { next: "info", active: "success", retiring: "warning", retired: "neutral" } as const;

type TKey = {
  kid: string;
  state: keyof typeof TONE;
  activates_at: string;
  retires_at: string | null;
  retired_at: string | null;
  retired_reason: string | null;
  signed_until: string | null;
  created_at: string;
};

/** What happens to a key next, in words, with the time it happens. */
function nextChange(k: TKey): string {
  switch (k.state) {
    case "next":
      return `Starts signing ${formatDateTime(k.activates_at)}`;
    case "active":
      return k.retires_at ? `Retires ${formatDateTime(k.retires_at)}` : "Signs until the next rotation";
    case "retiring":
      return `Leaves the JWKS ${formatDateTime(k.retires_at)} (after its last token expires)`;
    case "retired":
      return `Retired ${formatDateTime(k.retired_at ?? k.retires_at)}${k.retired_reason === "emergency" ? " by an emergency rotation" : ""}`;
  }
}

/** The issuer's signing keys with their rotation state (platform owners and admins). */
export function SigningKeysView() {
  const trpc = useTRPC();
  const keys = useQuery(trpc.signingKeys.list.queryOptions({}, { refetchInterval: 15_000 }));
  const rows = (keys.data?.items ?? []) as TKey[];
  return (
    <>
      <PageHeader
        title="Signing keys"
        description="Keys that sign Capstan's tokens. Rotate with `npx capstan rotate-signing-key` (or `--emergency` for a compromised key); platform owners and admins only."
      />
      <Card>
        <CardHeader>
          <CardTitle>Keys and rotation state</CardTitle>
          {keys.data ? (
            <CardDescription>
              A new key is published {keys.data.publish_lead_seconds} s before it signs (JWKS cached{" "}
              {keys.data.jwks_max_age_seconds} s, clock skew {keys.data.clock_skew_seconds} s); the previous key stays
              published until every token it signed has expired.
            </CardDescription>
          ) : null}
        </CardHeader>
        <CardContent className="px-0 py-0">
          <QueryStates
            query={keys}
            what="signing keys"
            empty={keys.isSuccess && rows.length === 0}
            emptyText="No signing keys yet."
          />
          {rows.length > 0 ? (
            <Table>
              <TableCaption>Signing keys, newest first</TableCaption>
              <TableHeader>
                <TableRow>
                  <TableHead>Key id</TableHead>
                  <TableHead>State</TableHead>
                  <TableHead>Next change</TableHead>
                  <TableHead>Signs from</TableHead>
                  <TableHead>Last token expires</TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {rows.map((k) => (
                  <TableRow key={k.kid}>
                    <TableCell>
                      <code className="font-mono text-xs">{k.kid}</code>
                    </TableCell>
                    <TableCell>
                      <Badge tone={TONE[k.state]}>{k.state}</Badge>
                    </TableCell>
                    <TableCell className="text-sm">{nextChange(k)}</TableCell>
                    <TableCell>{formatDateTime(k.activates_at)}</TableCell>
                    <TableCell>{formatDateTime(k.signed_until, "—")}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          ) : null}
        </CardContent>
      </Card>
    </>
  );
}
