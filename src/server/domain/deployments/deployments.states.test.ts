import { describe, expect, it } from "vitest";
import { AppError } from "@/server/platform/errors";
import {
  DEPLOYMENT,
  DEPLOYMENT_STATES,
  PIPELINE,
  PIPELINE_STATES,
  SURFACE,
  SURFACE_STATES,
} from "./deployments.states";

/** Every edge of every table, and every pair that is not an edge. */
describe.each([
  ["deployment", DEPLOYMENT, DEPLOYMENT_STATES],
  ["pipeline run", PIPELINE, PIPELINE_STATES],
  ["surface", SURFACE, SURFACE_STATES],
] as const)("%s transitions", (_name, machine, states) => {
  const events = [...new Set(machine.transitions.map((t) => t.event))];

  it("applies every declared edge", () => {
    for (const t of machine.transitions) expect(machine.next(t.from as never, t.event as never)).toBe(t.to);
  });

  it("refuses every undeclared edge with a 409 illegal_transition", () => {
    let refused = 0;
    for (const from of [null, ...states]) {
      for (const event of events) {
        const declared = machine.transitions.some((t) => t.from === from && t.event === event);
        if (declared) continue;
        refused++;
        expect(machine.can(from as never, event as never)).toBe(false);
        try {
          machine.next(from as never, event as never);
          expect.unreachable(`${from} --${event}--> should be refused`);
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
          expect((err as AppError).status).toBe(409);
          expect((err as AppError).reason).toBe("illegal_transition");
        }
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
        if (t.from === from && !seen.has(t.to)) {
          seen.add(t.to);
          queue.push(t.to);
        }
      }
    }
    expect([...seen].sort()).toEqual([...states].sort());
  });
});

describe("terminal states", () => {
  it("are exactly the end states", () => {
    expect([...DEPLOYMENT.terminal].sort()).toEqual(["blocked", "failed", "superseded"]);
    expect([...PIPELINE.terminal].sort()).toEqual(["blocked", "completed", "failed"]);
    expect([...SURFACE.terminal].sort()).toEqual(["configuration_failed", "expiration_registration_failed", "expired"]);
  });
});
