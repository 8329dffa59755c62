import { describe, expect, it } from "vitest";
import { BACKUP, RESTORE } from "./backups.states";

describe("backup and restore transition tables", () => {
  it("a backup runs, completes or fails, and expires; nothing leaves expired", () => {
    expect(BACKUP.next(null, "request")).toBe("pending");
    expect(BACKUP.next("pending", "start")).toBe("running");
    expect(BACKUP.next("running", "complete")).toBe("completed");
    expect(BACKUP.next("completed", "expire")).toBe("expired");
    expect(BACKUP.terminal).toEqual(new Set(["expired"]));
    expect(() => BACKUP.next("completed", "start")).toThrow(/illegal|not allowed|cannot/i);
    expect(() => BACKUP.next("pending", "complete")).toThrow();
  });

  it("a restore completes or fails once", () => {
    expect(RESTORE.next("running", "complete")).toBe("completed");
    expect(RESTORE.terminal).toEqual(new Set(["completed", "failed"]));
    expect(() => RESTORE.next("completed", "start")).toThrow();
    expect(() => RESTORE.next("failed", "complete")).toThrow();
  });
});
