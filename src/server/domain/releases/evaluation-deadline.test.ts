import { describe, expect, it } from "vitest";
import { EVALUATION_CHECKS, type TEvaluationCheck } from "./releases.contract";
import { hungStep } from "./evaluation-deadline";

const checksUpTo = (passed: number): TEvaluationCheck[] =>
  EVALUATION_CHECKS.map((name, i) => ({ name, status: i < passed ? "passed" : "pending", finished_at: null }));
const e = { status: "checking", startedAt: new Date("2026-11-28T09:00:00.000Z") };

describe("hungStep: the check an evaluation past its deadline hung in", () => {
  it("is the first check still pending, named in the message with the deadline", () => {
    expect(hungStep(e, checksUpTo(3), { id: "dep_x", status: "active" }, 60)).toEqual({
      check: "surface",
      message:
        "The evaluation did not finish within its deadline of 60 s (started 2026-11-28T09:00:00.000Z): it hung in the surface check: the deployment's surface never became reachable.",
    });
    expect(hungStep(e, checksUpTo(4), null, 60).check).toBe("smoke");
    expect(hungStep(e, checksUpTo(5), null, 60).check).toBe("logs");
  });

  it("names the deployment's state when the deployment never became active", () => {
    const deploying = { status: "deploying", startedAt: null };
    expect(hungStep(deploying, checksUpTo(2), { id: "dep_x", status: "planned" }, 5).message).toMatch(
      /deployment dep_x was still planned \(no deploy worker took it\)\.$/,
    );
    expect(hungStep(deploying, checksUpTo(2), { id: "dep_x", status: "applying" }, 5).message).toMatch(
      /still applying \(install, build or start never finished\)/,
    );
    expect(hungStep(deploying, checksUpTo(2), null, 5).message).toMatch(
      /while its preview deployment was being requested/,
    );
  });
});
