import { describe, expect, it } from "vitest";
import { AppError } from "@/server/platform/errors";
import { MRES } from "./managed-resources.states";

describe("managed resource transitions", () => {
  it("walks the happy path: provisioning -> available -> deletion_scheduled -> deleting -> deleted", () => {
    let s = MRES.next(null, "create");
    for (const e of ["provisioned", "schedule_delete", "destroy", "destroyed"] as const) s = MRES.next(s, e);
    expect(s).toBe("deleted");
    expect(MRES.terminal).toEqual(new Set(["deleted"]));
  });

  it("restores a scheduled deletion and fails a provisioning", () => {
    expect(MRES.next("deletion_scheduled", "restore")).toBe("provisioning");
    expect(MRES.next("provisioning", "provision_failed")).toBe("failed");
    expect(MRES.next("failed", "schedule_delete")).toBe("deletion_scheduled");
    expect(MRES.next("provisioning", "schedule_delete")).toBe("deletion_scheduled");
  });

  it("refuses what would lose data or resurrect a deleted resource", () => {
    for (const [from, event] of [
      ["available", "destroy"],
      ["deleted", "restore"],
      ["deleting", "restore"],
      ["provisioning", "restore"],
      ["deleted", "schedule_delete"],
    ] as const) {
      expect(() => MRES.next(from, event)).toThrow(AppError);
      expect(MRES.can(from, event)).toBe(false);
    }
  });
});
