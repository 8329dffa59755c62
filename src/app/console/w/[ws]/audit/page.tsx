import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditLogView } from "@/components/console/audit/audit-log-view";
import { Loading } from "@/components/console/shared/page-header";
import { AUDIT_ACTIONS } from "@/server/platform/audit";

export const metadata: Metadata = { title: "Audit log" };

/** The action list comes from the server module here, so the client bundle never imports it. */
export default async function AuditPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  return (
    <Suspense fallback={<Loading what="audit log" />}>
      <AuditLogView ws={ws} actions={[...AUDIT_ACTIONS].sort()} />
    </Suspense>
  );
}
