import { refusal as billingRefusal } from "@/server/domain/billing/collection/standing.service";
import { createHash } from "node:crypto";
import { priceAiCall } from "@/server/domain/billing/rate-cards.service";
import { PLAN_ENTITLEMENTS } from "@/server/domain/usage/plan.service";
import {
  admitUsage,
  finishTicket,
  settleTicket,
  ticketBinding,
  type TTicket,
} from "@/server/domain/usage/leases.service";
import { aiHold, flatHold } from "@/server/domain/billing/prepaid.service";
import type { TUsageCategory } from "@/server/domain/usage/usage.contract";
import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import { permits } from "@/server/domain/service-identities/service-identities.contract";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import type { TAuditAction } from "@/server/platform/audit";
import { activeContract, revisionContract, workspacePlan } from "./context";
import type { TResultReason, TUsage } from "./bridge.contract";
import { planAiCall, runAi, type TPricedUsage } from "./ai";
import { messageBytes, planEmailCall, runEmail } from "./email";
import { checkKvScope, runKv } from "./kv";
import { checkStorageScope, objectBytes, runStorage } from "./storage";
import { blocksOutput } from "./output-check";
import { recordCapabilityCall } from "./record";
import { Deny } from "./errors";
import { BridgeTiming } from "./timing";

/**
 * The decision pipeline of one Bridge call, in order: contract of the
 * identity's active revision (outside_contract) -> the identity's permissions
 * (permission_denied) -> binding (binding_missing / binding_revoked; a binding
 * whose own scope does not cover the request: policy_blocked) -> usage (plan entitlement, monthly budget reservation:
 * usage_denied) -> provider (with fallback) -> output check (output_blocked).
 * The first failing step decides; every call is recorded with its events.
 */
export type TBridgeCaller = {
  serviceIdentityId: string | null;
  /** Set when a hosted app calls through its deployment's Bridge socket. */
  deploymentId?: string | null;
  /** Pins the contract to this revision (a deployment's own); else the product's active revision. */
  revisionId?: string | null;
  workspaceId: string;
  productId: string | null;
  environmentType: string | null;
  executionId?: string | null;
  bridgeInvocationId?: string | null;
  /** The service identity's Bridge permissions; null or absent: every action of the contract. */
  permissions?: string[] | null;
  /**
   * Capstan's own calls on a workspace's behalf (an AI-generated fix): the
   * contract the call is checked against, given by the platform instead of a
   * product's, and the fix run it serves (`fix_run_id` of the requested event).
   */
  platformCall?: { contract: { revisionId: string; capabilities: TCapabilityEntry[] }; fixRunId: string | null };
};

export type TOutcome =
  | {
      kind: "completed";
      id: string;
      provider: string;
      fallbackUsed: boolean;
      usage: TUsage;
      output: unknown;
      providerMs: number;
    }
  | {
      kind: "denied" | "failed";
      id: string;
      reason: TResultReason;
      detail: string;
      retryAfter?: string;
      providerMs: number;
    };

export { Deny } from "./errors";

const CATEGORY: Record<string, { category: TUsageCategory; unit: TUsage["unit"] }> = {
  "ai.generate": { category: "ai_tokens", unit: "tokens" },
  "data.kv": { category: "storage", unit: "bytes" },
  "storage.object": { category: "storage", unit: "bytes" },
  "email.send": { category: "provider_call", unit: "calls" },
};

const DENIAL_AUDIT: Partial<Record<TResultReason, TAuditAction>> = {
  outside_contract: "capability.denied",
  permission_denied: "capability.denied",
  policy_blocked: "capability.denied",
  binding_missing: "capability.denied",
  binding_revoked: "capability.denied",
  usage_denied: "usage.denied",
  output_blocked: "capability.output_blocked",
};

function summary(value: unknown): { sha256: string; size_bytes: number } {
  const text = JSON.stringify(value ?? null);
  return { sha256: createHash("sha256").update(text).digest("hex"), size_bytes: Buffer.byteLength(text) };
}

export async function invoke(
  caller: TBridgeCaller,
  call: {
    capability: string;
    action: string;
    body: Record<string, unknown>;
    correlationId: string;
    startedAt: number;
    timing?: BridgeTiming;
  },
): Promise<TOutcome> {
  // Callers without a transport of their own (the runner endpoint) still get the phases measured.
  const timing = call.timing ?? new BridgeTiming(call.startedAt);
  // A call by an identity bound to no product has no contract and no product to record it under
  // (the result event requires product_id): refused before anything is recorded.
  if (!caller.productId) {
    throw new AppError("forbidden", "this service identity is not bound to a product", { reason: "outside_contract" });
  }
  const id = newId("cap");
  const requestedAt = new Date();
  const { category, unit } = CATEGORY[call.capability]!;
  let revisionId: string | null = null;
  let providerMs = 0;
  let ticket: TTicket | null = null;
  let priced: TPricedUsage | null = null;
  const result: {
    provider: string | null;
    bindingId: string | null;
    fallbackUsed: boolean;
    usage: TUsage;
    output: unknown;
  } = {
    provider: null,
    bindingId: null,
    fallbackUsed: false,
    usage: { units: 0, unit },
    output: null,
  };
  const audits: Array<{ action: TAuditAction; details: Record<string, unknown> }> = [];
  // The spec 6.2 request shape, described from the (schema-checked) body before any check can deny the call.
  let eventRequest: Record<string, unknown> | null = null;
  let outcome: TOutcome;
  try {
    const contract =
      caller.platformCall?.contract ??
      (caller.revisionId ? await revisionContract(caller.revisionId) : await activeContract(caller.productId));
    if (!contract) throw new Deny("outside_contract", "the product has no confirmed capability contract");
    revisionId = contract.revisionId;
    const entry = contract.capabilities.find((c) => c.id === call.capability);
    eventRequest = describeRequest(call.capability, call.action, call.body, entry);
    if (!entry) throw new Deny("outside_contract", `${call.capability} is not in the product's contract`);
    if (!entry.actions.includes(call.action))
      throw new Deny("outside_contract", `${call.capability} ${call.action} is not in the contract`);
    if (!permits(caller.permissions ?? null, call.capability, call.action)) {
      throw new Deny(
        "permission_denied",
        `${caller.serviceIdentityId ? `service identity ${caller.serviceIdentityId}` : `deployment ${caller.deploymentId}`} is not granted ${call.capability}:${call.action}`,
      );
    }

    if (call.capability === "data.kv") checkKvScope(entry, call.action, call.body);
    const storagePlan =
      call.capability === "storage.object"
        ? await checkStorageScope(caller.workspaceId, entry, call.action, call.body)
        : null;
    const plan = call.capability === "ai.generate" ? await planAiCall(caller.workspaceId, entry, call.body) : null;
    const emailPlan =
      call.capability === "email.send" ? await planEmailCall(caller.workspaceId, entry, call.body) : null;
    const reserveUnits = plan
      ? plan.reserveTokens
      : emailPlan
        ? 1
        : call.capability === "storage.object"
          ? objectBytes(call.action, call.body)
          : kvReserveBytes(call.action, call.body);

    const entitled = PLAN_ENTITLEMENTS[await workspacePlan(caller.workspaceId)][category];
    if (!entitled) throw new Deny("usage_denied", `the workspace plan does not include ${category}`);
    // Dunning (docs/decisions.md "Billing: collection and dunning"): restricted refuses priced calls, suspended every call.
    const unpaid = await billingRefusal(caller.workspaceId, plan || emailPlan ? "priced_call" : "any_call");
    if (unpaid) throw new Deny("usage_denied", unpaid);
    timing.mark("admission");
    if (reserveUnits > 0) {
      // ai.generate also reserves on a binding's token budget: the first candidate's, or with
      // `fallback: listed` the first candidate's whose budget still fits (a spent binding is skipped).
      const bindingIds = plan
        ? (plan.fallback === "listed" ? plan.bindings : plan.bindings.slice(0, 1)).map((b) => b.id)
        : [];
      // A prepaid workspace also holds the call's maximum price from its wallet, in the same statement.
      const prepaid = plan
        ? await aiHold(caller.workspaceId, plan.bindings, plan.reserveTokens, requestedAt)
        : { hold: await flatHold(caller.workspaceId) };
      if ("refused" in prepaid) throw new Deny("usage_denied", prepaid.refused);
      // A draw from this process's budget lease, journaled before the provider call (or a per-call
      // reservation, committed before it): the call's in-flight journal (see leases.service.ts).
      const reserved = await admitUsage(caller.workspaceId, category, reserveUnits, {
        bindingIds,
        invocationId: id,
        hold: prepaid.hold,
      });
      if (!reserved.ok) {
        if (reserved.why === "wallet")
          throw new Deny(
            "usage_denied",
            "the prepaid wallet's available balance cannot cover this call; top up the wallet",
          );
        throw new Deny(
          "usage_denied",
          `the monthly ${category} budget or the binding's token budget is exhausted`,
          String(secondsToNextMonth()),
        );
      }
      ticket = reserved.ticket;
      const reservedOn = ticketBinding(ticket);
      if (plan && reservedOn) plan.startAt = plan.bindings.findIndex((b) => b.id === reservedOn);
    }

    timing.mark("reserve");
    // An upstream's wait is not Capstan's overhead; the platform's own store (data.kv, storage on `platform`) is.
    timing.upstream = Boolean(plan || emailPlan || (storagePlan && storagePlan.candidates[0]?.provider !== "platform"));
    try {
      if (plan) {
        const served = await runAi(plan, audits);
        Object.assign(result, served);
        priced = served.priced;
      } else if (emailPlan) Object.assign(result, await runEmail(emailPlan, audits));
      else if (call.capability === "storage.object") {
        Object.assign(
          result,
          await runStorage(
            storagePlan!,
            { workspaceId: caller.workspaceId, productId: caller.productId },
            call.action,
            call.body,
            audits,
          ),
        );
      } else
        Object.assign(
          result,
          await runKv({ workspaceId: caller.workspaceId, productId: caller.productId }, entry, call.action, call.body),
        );
    } finally {
      timing.mark("provider");
      if (storagePlan && result.provider) timing.upstream = result.provider !== "platform";
      providerMs = timing.upstreamMs();
    }
    if (await blocksOutput(caller.workspaceId, result.output)) {
      throw new Deny("output_blocked", "the provider's output contains a secret stored in this workspace");
    }
    outcome = {
      kind: "completed",
      id,
      provider: result.provider!,
      fallbackUsed: result.fallbackUsed,
      usage: result.usage,
      output: result.output,
      providerMs,
    };
  } catch (err) {
    if (!(err instanceof Deny)) {
      // An unexpected error (not a crash): nothing is recorded; the reservation is released.
      if (ticket) {
        const t = ticket;
        await settleTicket(t, 0, null, null).catch((e: unknown) =>
          logger.error("bridge.settle_failed", { invocation_id: id, error: String(e) }),
        );
        finishTicket(t);
      }
      throw err;
    }
    const failed = err.reason === "provider_unavailable" || err.reason === "provider_rejected";
    outcome = {
      kind: failed ? "failed" : "denied",
      id,
      reason: err.reason,
      detail: err.message,
      retryAfter: err.retryAfter,
      providerMs,
    };
    const audit = DENIAL_AUDIT[err.reason];
    if (audit)
      audits.push({
        action: audit,
        details: { capability: call.capability, action: call.action, reason: err.reason, detail: err.message },
      });
  }

  const finishedAt = new Date();
  // The charge is settled in the record's own transaction, and the response waits for its commit.
  const settle = ticket
    ? { ticket, units: outcome.kind === "completed" ? outcome.usage.units : 0, usedBindingId: result.bindingId }
    : null;
  // Priced at settle time with the card version in force at the call's start (docs/decisions.md "Billing").
  const charge =
    outcome.kind === "completed" && priced
      ? await priceAiCall(priced.provider, priced.model, requestedAt, priced).catch(async (err: unknown) => {
          if (settle)
            await settleTicket(settle.ticket, settle.units, settle.usedBindingId, null).catch(() => undefined);
          finishTicket(ticket);
          throw err;
        })
      : null;
  timing.commitMs = await recordCapabilityCall({
    id,
    workspaceId: caller.workspaceId,
    productId: caller.productId,
    revisionId,
    serviceIdentityId: caller.serviceIdentityId,
    deploymentId: caller.deploymentId ?? null,
    executionId: caller.executionId ?? null,
    bridgeInvocationId: caller.bridgeInvocationId ?? null,
    environmentType: caller.environmentType,
    fixRunId: caller.platformCall?.fixRunId ?? null,
    capability: call.capability,
    action: call.action,
    request: eventRequest ?? { id: call.capability, action: call.action },
    requestDescribed: eventRequest !== null,
    requestSummary: summary(call.body),
    outcome: outcome.kind,
    reason: outcome.kind === "completed" ? null : outcome.reason,
    provider: result.provider,
    bindingId: result.bindingId,
    fallbackUsed: result.fallbackUsed,
    usage: outcome.kind === "completed" ? outcome.usage : { units: 0, unit },
    outputSummary: outcome.kind === "completed" ? summary(outcome.output) : null,
    correlationId: call.correlationId,
    requestedAt,
    finishedAt,
    latencyMs: Math.round(performance.now() - call.startedAt),
    overheadMs: Math.round(timing.overheadMs()),
    audits,
    settle,
    charge,
  })
    .catch(async (err: unknown) => {
      // Not recorded: the client gets a 5xx. The call is still charged what it used (best effort;
      // if this fails too, the reservation stays and the sweeper charges the reserved amount).
      if (settle) {
        await settleTicket(settle.ticket, settle.units, settle.usedBindingId, charge?.micros ?? null).catch(
          (e: unknown) => logger.error("bridge.settle_failed", { invocation_id: id, error: String(e) }),
        );
      }
      throw err;
    })
    .finally(() => finishTicket(ticket));
  return outcome;
}

/**
 * The request of the capability.invocation_requested event. ai.generate's
 * max_tokens is the one asked for, else the contract's max_tokens_per_call;
 * with neither (a capability outside the contract, no max_tokens) the request
 * cannot be described and null is returned.
 */
function describeRequest(
  capability: string,
  action: string,
  body: Record<string, unknown>,
  entry: TCapabilityEntry | undefined,
) {
  if (capability === "data.kv") return kvEventRequest(action, body);
  if (capability === "ai.generate") {
    const maxTokens =
      (body.max_tokens as number | undefined) ??
      (entry?.scope as { max_tokens_per_call?: number } | undefined)?.max_tokens_per_call;
    return maxTokens
      ? { id: "ai.generate", action: "generate", model_kind: body.model_kind, max_tokens: maxTokens }
      : null;
  }
  if (capability === "storage.object") {
    const req: Record<string, unknown> = { id: "storage.object", action, key: body.key ?? body.prefix };
    if (action === "write") req.bytes = objectBytes(action, body);
    return req;
  }
  if (capability === "email.send") {
    return { id: "email.send", action, from: body.from, recipients: body.recipients, bytes: messageBytes(body) };
  }
  return null;
}

function kvEventRequest(action: string, body: Record<string, unknown>): Record<string, unknown> {
  const key = (body.key ?? body.prefix) as string;
  const req: Record<string, unknown> = { id: "data.kv", action, key };
  if (action === "set") req.bytes = Buffer.byteLength(JSON.stringify(body.value ?? null));
  return req;
}

function kvReserveBytes(action: string, body: Record<string, unknown>): number {
  return action === "set" ? Buffer.byteLength(JSON.stringify(body.value ?? null)) : 0;
}

export function secondsToNextMonth(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
