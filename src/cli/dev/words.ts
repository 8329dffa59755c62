import type { components } from "@capstan/client";

/** Findings, contracts and build plans in words, for people reading a terminal. */
type TCapability = components["schemas"]["CapabilityContract"]["capabilities"][number];
type TFinding = { severity: string; code: string; message: string };

export function describeCapability(c: TCapability): string {
  const s = c.scope as Record<string, unknown>;
  const actions = c.actions.join(", ");
  switch (c.id) {
    case "data.kv":
      return `data.kv: ${actions} under ${String(s.prefix)} (values up to ${String(s.max_value_bytes)} bytes, at most ${String(s.max_keys)} keys; stored by Capstan)`;
    case "storage.object":
      return `storage.object: ${actions} under ${String(s.prefix)} (objects up to ${String(s.max_object_bytes)} bytes; provider ${c.provider.allow.join(" or ")})`;
    case "ai.generate":
      return `ai.generate: ${(s.models as string[]).join(" and ")} models, up to ${String(s.max_tokens_per_call)} tokens a call (provider ${c.provider.allow.join(" or ")}; needs a provider binding in the workspace)`;
    case "email.send":
      return `email.send: from ${(s.from_addresses as string[]).join(", ")} to ${(s.recipient_domains as string[]).join(", ")}, up to ${String(s.max_recipients)} recipients (needs an SMTP binding)`;
    default:
      return `${String(c.id)}: ${actions}`;
  }
}

export function describeFindings(findings: TFinding[], indent = "  "): string[] {
  return findings.map(
    (f) => `${indent}${f.severity === "error" ? "✗" : f.severity === "warning" ? "!" : "·"} ${f.message} (${f.code})`,
  );
}

type TDescriptor = NonNullable<components["schemas"]["Revision"]["descriptor"]>;

export function describeBuildPlan(d: TDescriptor): string[] {
  const plan = d.build_plan;
  if (!plan) return [`  runs: ${[d.entrypoint.command, ...d.entrypoint.args].join(" ")}`];
  const runtime = `${plan.runtime.kind}${plan.runtime.version ? ` ${plan.runtime.version}` : ""}`;
  return [
    `  runtime: ${runtime}`,
    `  install: ${plan.install.command ?? "(none)"}`,
    `  build:   ${plan.build.command ?? "(none)"}`,
    `  start:   ${plan.start.command}  (listens on $PORT, health check GET ${plan.health.path})`,
  ];
}

const REASONS: Record<string, string> = {
  scope_widened: "the contract asks for more than the product's current one",
  unknown_capability: "capabilities.json names a capability Capstan does not have",
  unknown_action: "capabilities.json names an action the capability does not have",
  scope_invalid: "capabilities.json is not valid (see the path)",
  owner_not_supported: "a credential_owner is not the one that capability takes",
  contract_too_large: "capabilities.json is too large (64 KiB, 32 entries at most)",
  isolation_unenforced:
    "production needs enforced isolation and this runner cannot enforce it (CAPSTAN_ALLOW_UNENFORCED_PRODUCTION=1 lets an operator allow it)",
  build_failed: "the build step failed",
  install_failed: "installing dependencies failed",
  health_check_failed: "the app did not answer its health check",
};

export function reasonInWords(code: string | undefined | null): string {
  if (!code) return "";
  return REASONS[code] ? `${REASONS[code]} (${code})` : code;
}

/** The last `n` non-empty lines of a log. */
export function tail(text: string, n: number): string[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(-n);
}
