import { writeAuditStandalone } from "@/server/platform/audit";
import { AppError } from "@/server/platform/errors";
import { logger } from "@/server/platform/logger";

/**
 * `bridge.rejected`: an authenticated caller's request refused before the
 * decision pipeline (malformed body, idempotency conflict, rate limit, an
 * identity bound to no product). A broken or flooding app would otherwise
 * write one audit row per request, so each (identity, reason) is audited at
 * most once per window; the next record counts the ones suppressed in
 * between. Calls refused by the pipeline are capability invocations with
 * their own audits (capability.denied, usage.denied...), not this.
 */
export const REJECTION_AUDIT_WINDOW_MS = 60_000;

const last = new Map<string, { at: number; suppressed: number }>();

export async function auditRejection(
  principal: { principalId: string; kind: "service_identity" | "deployment"; caller: { workspaceId: string } },
  err: unknown,
  ctx: { path: string; correlationId: string },
): Promise<void> {
  if (!(err instanceof AppError) || err.status >= 500 || err.status === 401) return;
  const reason = err.reason ?? err.code;
  const key = `${principal.principalId}:${reason}`;
  const now = Date.now();
  const seen = last.get(key);
  if (seen && now - seen.at < REJECTION_AUDIT_WINDOW_MS) {
    seen.suppressed++;
    return;
  }
  if (last.size > 10_000) last.clear();
  last.set(key, { at: now, suppressed: 0 });
  try {
    await writeAuditStandalone({
      workspaceId: principal.caller.workspaceId,
      actor: { kind: "service", id: principal.principalId },
      action: "bridge.rejected",
      target: { kind: principal.kind, id: principal.principalId },
      correlationId: ctx.correlationId,
      details: {
        path: ctx.path,
        status: err.status,
        reason,
        detail: err.message,
        suppressed_before: seen?.suppressed ?? 0,
      },
    });
  } catch (e) {
    logger.error("bridge.rejection_audit_failed", { correlation_id: ctx.correlationId, error: String(e) });
  }
}

export function resetRejectionAudits(): void {
  last.clear();
}
