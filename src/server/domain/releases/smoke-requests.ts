import type { Evaluation, Revision } from "@/generated/prisma/client";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { closeSession, openSession } from "@/server/domain/sessions/sessions.service";
import { createInvocation } from "@/server/domain/sessions/invocations.service";
import type { TDescriptor } from "@/server/domain/source/source.types";
import type { TEvaluationCheckName, TEvaluationFinding } from "./releases.contract";

/**
 * An evaluation's smoke requests (evaluation-worker.ts, the checking phase): the health path and "/" sent as session
 * invocations on a session of the requester, each answer judged.
 */

export const finding = (
  check: TEvaluationCheckName,
  kind: string,
  severity: string,
  code: string,
  message: string,
): TEvaluationFinding => ({ id: newId("fnd"), check, kind, severity, code, message });

/** Sends the smoke requests; findings for the ones that failed, the invocations sent and the session used. */
export async function smokeRequests(
  e: Evaluation,
  rev: Revision,
  surfaceId: string,
): Promise<{ findings: TEvaluationFinding[]; invocationIds: string[]; sessionId: string | null }> {
  const caller = { userId: e.createdBy, correlationId: e.correlationId };
  const health = (rev.descriptor as unknown as TDescriptor).build_plan?.health.path ?? "/";
  const paths = [...new Set([health, "/"])];
  let sessionId: string | null = null;
  const invocationIds: string[] = [];
  const findings: TEvaluationFinding[] = [];
  try {
    sessionId = (await openSession(caller, surfaceId)).id;
    for (const path of paths) {
      const inv = await createInvocation(caller, sessionId, {
        kind: "http_request",
        method: "GET",
        path,
        body_evidence: null,
      });
      invocationIds.push(inv.id);
      const x = inv.execution;
      if (inv.admission?.outcome !== "admitted" || !x) {
        findings.push(
          finding(
            "smoke",
            "invocation",
            "error",
            "smoke_denied",
            `GET ${path} was not admitted (${inv.admission?.reason ?? "no admission"}): ${inv.admission?.message ?? ""}`.trim(),
          ),
        );
      } else if (x.status === "timed_out") {
        findings.push(
          finding(
            "smoke",
            "invocation",
            "error",
            "smoke_timeout",
            `GET ${path} did not answer within the invocation deadline.`,
          ),
        );
      } else if (x.result.http_status === null) {
        findings.push(
          finding(
            "smoke",
            "invocation",
            "error",
            "smoke_runtime_error",
            `GET ${path} got no answer: ${x.failure?.message ?? x.status}.`,
          ),
        );
      } else if (x.result.http_status >= 500) {
        findings.push(
          finding(
            "smoke",
            "invocation",
            "error",
            "smoke_server_error",
            `GET ${path} answered ${x.result.http_status}.`,
          ),
        );
      } else if (path === health && x.result.http_status === 404) {
        findings.push(
          finding(
            "smoke",
            "invocation",
            "error",
            "health_path_not_found",
            `GET ${path} (the health path) answered 404.`,
          ),
        );
      }
    }
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    findings.push(
      finding("smoke", "invocation", "error", "smoke_denied", `The smoke session could not be opened: ${err.message}`),
    );
  } finally {
    if (sessionId) await closeSession(caller, sessionId).catch(() => undefined);
  }
  return { findings, invocationIds, sessionId };
}

/** The checks passed so far are written as they pass, so a run that hangs names the check it hung in. */
