"use client";

import { useQuery } from "@tanstack/react-query";
import { ShieldCheck } from "lucide-react";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { problemOf, useTRPC } from "@/lib/trpc/client";

/** Owners and admins re-check the audit log's hash chain on demand. */
export function ChainCheck({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const [requested, setRequested] = useState(false);
  const verify = useQuery({ ...trpc.audit.verify.queryOptions({ ws }), enabled: requested, staleTime: 0 });
  return (
    <div className="flex flex-wrap items-center gap-3">
      <Button
        variant="secondary"
        size="sm"
        disabled={verify.isFetching}
        onClick={() => (requested ? void verify.refetch() : setRequested(true))}
      >
        <ShieldCheck aria-hidden="true" />
        {verify.isFetching ? "Verifying…" : "Verify hash chain"}
      </Button>
      <div aria-live="polite" className="text-sm">
        {verify.error ? <Alert problem={problemOf(verify.error)} /> : null}
        {verify.data && !verify.isFetching ? (
          verify.data.ok ? (
            <span className="text-emerald-800">Intact: {verify.data.count} records check out.</span>
          ) : (
            <span className="text-rose-800">
              Broken at <code className="font-mono">{verify.data.broken_at}</code> ({verify.data.count} records).
            </span>
          )
        ) : null}
      </div>
    </div>
  );
}
