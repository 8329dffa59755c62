import type { TResultReason } from "@/server/bridge/bridge.contract";

/** Spec 6.3 result reasons in words, and where in the console to act on them. */
export const REASONS: Record<TResultReason, { text: string; fix?: { path: string; label: string } }> = {
  outside_contract: {
    text: "Outside the product's confirmed capability contract (capability, action or scope).",
    fix: { path: "/products", label: "Products" },
  },
  permission_denied: {
    text: "The service identity's Bridge permissions do not include this action.",
    fix: { path: "/service-identities", label: "Service identities" },
  },
  policy_blocked: {
    text: "No ready provider binding covers this call: it is outside every binding's actions or scope.",
    fix: { path: "/bindings", label: "Provider bindings" },
  },
  binding_missing: {
    text: "No provider binding can serve this capability in this workspace.",
    fix: { path: "/bindings", label: "Provider bindings" },
  },
  binding_revoked: {
    text: "The provider binding, or its credential, is revoked or expired.",
    fix: { path: "/bindings", label: "Provider bindings" },
  },
  usage_denied: {
    text: "The plan does not include it, or the monthly or binding budget is used up.",
    fix: { path: "/plan", label: "Plan & budgets" },
  },
  provider_unavailable: {
    text: "The provider could not be reached or was temporarily failing (network, timeout, 5xx, 429).",
  },
  provider_rejected: {
    text: "The provider refused the request (for example bad credentials, an unknown model or bucket).",
  },
  output_blocked: { text: "The provider's output contained a stored credential secret, so it was withheld." },
};

export const RESULT_REASONS = Object.keys(REASONS) as TResultReason[];

export function reasonOf(reason: string | null): { text: string; fix?: { path: string; label: string } } | undefined {
  return reason && Object.hasOwn(REASONS, reason) ? REASONS[reason as TResultReason] : undefined;
}

export type TCheckState = "passed" | "failed" | "not_reached" | "not_needed" | "unknown";
export type TCheck = { name: string; what: string; state: TCheckState };

/**
 * The Bridge's decision steps in the order it runs them (src/server/bridge/pipeline.ts);
 * the first failing step decides the call, so a recorded outcome and reason tell
 * which steps passed, which one failed and which were never reached.
 */
const STEPS: { name: string; what: string; reasons: TResultReason[] }[] = [
  {
    name: "Contract",
    what: "The capability, action and scope are in the product's confirmed contract.",
    reasons: ["outside_contract"],
  },
  { name: "Permission", what: "The caller's Bridge permissions include the action.", reasons: ["permission_denied"] },
  {
    name: "Binding",
    what: "A ready provider binding covers the call (the platform serves data.kv itself).",
    reasons: ["binding_missing", "binding_revoked", "policy_blocked"],
  },
  {
    name: "Usage and budget",
    what: "The plan includes the usage category and the monthly, binding and wallet budgets can hold it.",
    reasons: ["usage_denied"],
  },
  {
    name: "Provider",
    what: "The provider (or a listed fallback) answered.",
    reasons: ["provider_unavailable", "provider_rejected"],
  },
  { name: "Output check", what: "The output holds no secret stored in this workspace.", reasons: ["output_blocked"] },
];

export function checksOf(inv: {
  outcome: string;
  reason: string | null;
  capability: string;
  binding_id: string | null;
  provider: string | null;
}): TCheck[] {
  if (inv.outcome === "requested") return STEPS.map((s) => ({ name: s.name, what: s.what, state: "unknown" }));
  const failedAt =
    inv.outcome === "completed" ? -1 : STEPS.findIndex((s) => s.reasons.includes(inv.reason as TResultReason));
  if (inv.outcome !== "completed" && failedAt === -1)
    return STEPS.map((s) => ({ name: s.name, what: s.what, state: "unknown" }));
  return STEPS.map((s, i): TCheck => {
    let state: TCheckState = failedAt === -1 || i < failedAt ? "passed" : i === failedAt ? "failed" : "not_reached";
    if (
      state === "passed" &&
      s.name === "Binding" &&
      !inv.binding_id &&
      (inv.capability === "data.kv" || inv.provider === "platform")
    )
      state = "not_needed";
    return { name: s.name, what: s.what, state };
  });
}
