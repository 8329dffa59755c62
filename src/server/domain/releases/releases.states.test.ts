import { describe, expect, it } from "vitest";
import { AppError } from "@/server/platform/errors";
import { EVALUATION, EVALUATION_STATES, FIX, FIX_STATES, RELEASE, RELEASE_STATES } from "./releases.states";

/** Every edge of every table, and every pair that is not an edge. */
describe.each([
  ["evaluation", EVALUATION, EVALUATION_STATES],
  ["release", RELEASE, RELEASE_STATES],
  ["fix", FIX, FIX_STATES],
] as const)("%s transitions", (_name, machine, states) => {
  const events = [...new Set(machine.transitions.map((t) => t.event))];

  it("applies every declared edge", () => {
    for (const t of machine.transitions) expect(machine.next(t.from as never, t.event as never)).toBe(t.to);
  });

  it("refuses every undeclared edge with a 409 illegal_transition", () => {
    let refused = 0;
    for (const from of [null, ...states]) {
      for (const event of events) {
        if (machine.transitions.some((t) => t.from === from && t.event === event)) continue;
        refused++;
        expect(machine.can(from as never, event as never)).toBe(false);
        const err = (() => {
          try {
            machine.next(from as never, event as never);
          } catch (e) {
            return e;
          }
          return null;
        })();
        expect(err, `${from} --${event}-->`).toBeInstanceOf(AppError);
        expect((err as AppError).reason).toBe("illegal_transition");
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it("reaches every state from creation", () => {
    const seen = new Set<string>();
    const queue: Array<string | null> = [null];
    while (queue.length) {
      const from = queue.shift()!;
      for (const t of machine.transitions) {
        if (t.from !== from || seen.has(t.to)) continue;
        seen.add(t.to);
        queue.push(t.to);
      }
    }
    expect([...seen].sort()).toEqual([...states].sort());
  });
});

describe("terminal states", () => {
  it("are exactly the end states", () => {
    expect([...EVALUATION.terminal].sort()).toEqual(["failed", "passed"]);
    // A retired release can come back only through a rollback (reinstate), so only blocked is final.
    expect([...RELEASE.terminal].sort()).toEqual(["blocked"]);
    expect([...FIX.terminal].sort()).toEqual(["approved", "failed", "rejected"]);
  });
  it("a failed (AI) fix is created failed and can be neither approved nor rejected", () => {
    expect(FIX.next(null, "fail")).toBe("failed");
    expect(FIX.can("failed", "approve")).toBe(false);
    expect(FIX.can("failed", "reject")).toBe(false);
  });
  it("a live release cannot be blocked or deployed again, a retired one comes back only by a rollback", () => {
    expect(RELEASE.can("live", "block")).toBe(false);
    expect(RELEASE.can("live", "freeze")).toBe(false);
    expect(RELEASE.can("retired", "go_live")).toBe(false);
    expect(RELEASE.can("retired", "promote")).toBe(false);
    expect(RELEASE.next("retired", "reinstate")).toBe("ready");
    expect(RELEASE.next("live", "promote")).toBe("ready");
  });
});
