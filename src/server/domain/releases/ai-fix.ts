import type { Revision } from "@/generated/prisma/client";
import { invoke } from "@/server/bridge/pipeline";
import { scopedDb } from "@/server/platform/db/scoped";
import { AppError } from "@/server/platform/errors";
import type { TCapabilityEntry, TDescriptor } from "@/server/domain/source/source.types";
import { applyUnifiedDiff, DiffRefusal } from "./diff-apply";
import { snapshotTextFiles } from "./fix-apply";
import type { TFileChange, TFindingRef } from "./fix-rules";
import type { TEvaluationFinding } from "./releases.contract";

/**
 * The AI-generated fix: Capstan asks a model, through its own Bridge, for a
 * unified diff that fixes a failed evaluation. The call is the workspace's
 * own `ai.generate` call (its bindings, plan, budgets, wallet and rate card;
 * recorded and charged like any call, its requested event carrying
 * `fix_run_id`), checked against a contract the platform gives it (text
 * only, AI_FIX_MAX_TOKENS, the workspace's ready ai.generate providers in
 * binding order, fallback listed), not the product's: the app need not ask
 * for ai.generate itself. The answer counts only if it is a unified diff that
 * applies to the frozen snapshot; anything else is a finding.
 */
export const AI_FIX_MAX_TOKENS = 4_096;
/** What of the frozen source goes into the prompt: text files up to this size each, and in all. */
const FILE_MAX_CHARS = 32 * 1024;
const PROMPT_MAX_CHARS = 96 * 1024;
const FIRST = ["package.json", "capabilities.json", "server.js", "index.js", "app.js", "main.js"];

export type TAiFixFinding = { kind: string; severity: string; code: string; message: string };
export type TAiFixResult =
  | { ok: true; diff: string; changes: TFileChange[]; summary: string; invocationId: string }
  | { ok: false; finding: TAiFixFinding; invocationId: string | null };

const SYSTEM = [
  "You repair hosted Node.js apps for Capstan. An evaluation of the app's frozen source failed; its findings and files follow.",
  "Answer with one unified diff (the format of `diff -u` or `git diff`: `--- a/<path>`, `+++ b/<path>`, `@@` hunks with exact context lines) against those files, paths relative to the repository root.",
  "Answer with the diff only: no prose, no explanation. Do not delete or rename files.",
].join(" ");

function prompt(
  rev: Revision,
  finding: TFindingRef,
  findings: TEvaluationFinding[],
  files: Map<string, string | null>,
): string {
  const plan = (rev.descriptor as unknown as TDescriptor | null)?.build_plan ?? null;
  const order = [...files.keys()].sort((a, b) => {
    const ia = FIRST.indexOf(a);
    const ib = FIRST.indexOf(b);
    return (ia < 0 ? FIRST.length : ia) - (ib < 0 ? FIRST.length : ib) || a.localeCompare(b);
  });
  const parts = [
    `The finding to fix: [${finding.check ?? "detection"}] ${finding.code}: ${finding.message}`,
    `All findings of the evaluation:\n${findings.map((f) => `- [${f.check}] ${f.code}: ${f.message}`).join("\n")}`,
    `The build plan Capstan runs (install, build, start with PORT set, then GET the health path):\n${JSON.stringify(plan, null, 1)}`,
    `Files of the source (${files.size}): ${order.join(", ")}`,
  ];
  let budget = PROMPT_MAX_CHARS - parts.join("\n\n").length;
  for (const path of order) {
    const text = files.get(path);
    if (text === null || text === undefined || text.length > FILE_MAX_CHARS || text.length + path.length + 20 > budget)
      continue;
    const block = `--- ${path}\n${text}${text.endsWith("\n") ? "" : "\n"}`;
    parts.push(block);
    budget -= block.length;
  }
  return parts.join("\n\n");
}

async function workspaceAiProviders(workspaceId: string): Promise<string[]> {
  const rows = await scopedDb(workspaceId).providerBinding.findMany({
    where: { capability: "ai.generate", status: "ready" },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { provider: true },
  });
  return [...new Set(rows.map((r) => r.provider))];
}

/**
 * Asks the workspace's model for a diff that fixes `finding` of a failed
 * evaluation (`findings`: all of that evaluation's). 409 `ai_binding_missing`
 * when the workspace has no ready ai.generate binding (nothing is called or
 * written); otherwise a diff with its changes, or a finding saying why not.
 */
export async function generateAiFix(args: {
  fixId: string;
  rev: Revision;
  finding: TFindingRef;
  findings: TEvaluationFinding[];
  correlationId: string;
}): Promise<TAiFixResult> {
  const { rev } = args;
  const providers = await workspaceAiProviders(rev.workspaceId);
  if (!providers.length) {
    throw new AppError(
      "conflict",
      "An AI-generated fix needs a ready ai.generate provider binding in this workspace: add one (Credentials and bindings), or use a rule fix",
      { reason: "ai_binding_missing" },
    );
  }
  const files = await snapshotTextFiles(rev);
  const entry: TCapabilityEntry = {
    id: "ai.generate",
    required: true,
    actions: ["generate"],
    scope: { models: ["text"], max_tokens_per_call: AI_FIX_MAX_TOKENS },
    credential_owner: "workspace",
    provider: { allow: providers, fallback: "listed" },
  };
  const outcome = await invoke(
    {
      serviceIdentityId: null,
      deploymentId: null,
      workspaceId: rev.workspaceId,
      productId: rev.productId,
      environmentType: null,
      platformCall: { contract: { revisionId: rev.id, capabilities: [entry] }, fixRunId: args.fixId },
    },
    {
      capability: "ai.generate",
      action: "generate",
      correlationId: args.correlationId,
      startedAt: performance.now(),
      body: {
        model_kind: "text",
        input: {
          messages: [
            { role: "system", content: SYSTEM },
            { role: "user", content: prompt(rev, args.finding, args.findings, files) },
          ],
        },
      },
    },
  );
  if (outcome.kind !== "completed") {
    return {
      ok: false,
      invocationId: outcome.id,
      finding: {
        kind: "fix",
        severity: "error",
        code: "ai_call_failed",
        message: `The model call ${outcome.id} was ${outcome.kind} (${outcome.reason}): ${outcome.detail}`,
      },
    };
  }
  const text = (outcome.output as { text?: unknown } | null)?.text;
  const answer = typeof text === "string" ? text : "";
  try {
    const { diff, changes } = applyUnifiedDiff(answer, files);
    const summary = `A model (${outcome.provider}) proposes a patch of ${changes.map((c) => `${c.path}${c.before_sha256 === null ? " (new)" : ""}`).join(", ")} for ${args.finding.code}. Review the diff: it was generated, not derived by a rule.`;
    return { ok: true, diff, changes, summary, invocationId: outcome.id };
  } catch (err) {
    if (!(err instanceof DiffRefusal)) throw err;
    const excerpt = answer.trim().slice(0, 300);
    return {
      ok: false,
      invocationId: outcome.id,
      finding: {
        kind: "fix",
        severity: "error",
        code: err.code,
        message: `${err.message} The answer began: ${JSON.stringify(excerpt)}${answer.trim().length > 300 ? "…" : ""}`,
      },
    };
  }
}
