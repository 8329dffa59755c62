import { describe, expect, it } from "vitest";
import { checksOf, REASONS, RESULT_REASONS } from "./invocation-reasons";

const base = { capability: "ai.generate", binding_id: "bind_x", provider: "openai" };
const states = (inv: Parameters<typeof checksOf>[0]) => checksOf(inv).map((c) => `${c.name}:${c.state}`);

describe("checksOf: the drill-down's checks from outcome and reason", () => {
  it("a completed call passed every step; data.kv on the platform needs no binding", () => {
    expect(states({ ...base, outcome: "completed", reason: null }).every((s) => s.endsWith(":passed"))).toBe(true);
    expect(
      states({ capability: "data.kv", binding_id: null, provider: "platform", outcome: "completed", reason: null }),
    ).toContain("Binding:not_needed");
  });

  it("the step of the reason failed, those before passed, those after were not reached", () => {
    expect(states({ ...base, outcome: "denied", reason: "outside_contract" })).toEqual([
      "Contract:failed",
      "Permission:not_reached",
      "Binding:not_reached",
      "Usage and budget:not_reached",
      "Provider:not_reached",
      "Output check:not_reached",
    ]);
    expect(states({ ...base, outcome: "denied", reason: "usage_denied" })).toEqual([
      "Contract:passed",
      "Permission:passed",
      "Binding:passed",
      "Usage and budget:failed",
      "Provider:not_reached",
      "Output check:not_reached",
    ]);
    expect(states({ ...base, outcome: "failed", reason: "provider_unavailable" })).toContain("Provider:failed");
    expect(
      states({ ...base, outcome: "denied", reason: "output_blocked" })
        .slice(0, 5)
        .every((s) => s.endsWith(":passed")),
    ).toBe(true);
  });

  it("every spec reason decides exactly one step; an in-flight call or an unknown reason decides none", () => {
    for (const reason of RESULT_REASONS) {
      expect(
        checksOf({ ...base, outcome: "denied", reason }).filter((c) => c.state === "failed"),
        reason,
      ).toHaveLength(1);
    }
    expect(Object.keys(REASONS)).toHaveLength(9);
    expect(checksOf({ ...base, outcome: "requested", reason: null }).every((c) => c.state === "unknown")).toBe(true);
    expect(checksOf({ ...base, outcome: "denied", reason: "something_new" }).every((c) => c.state === "unknown")).toBe(
      true,
    );
  });
});
