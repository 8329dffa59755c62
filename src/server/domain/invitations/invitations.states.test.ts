import { describe, expect, it } from "vitest";
import { effectiveStatus, invitationStates } from "./invitations.states";

describe("invitation states", () => {
  it("only a pending invitation can be accepted, revoked, resent or expired", () => {
    expect(invitationStates.next(null, "invite")).toBe("pending");
    expect(invitationStates.next("pending", "accept")).toBe("accepted");
    expect(invitationStates.next("pending", "resend")).toBe("pending");
    for (const from of ["accepted", "revoked", "expired"] as const) {
      for (const event of ["accept", "revoke", "resend", "expire"] as const) {
        expect(() => invitationStates.next(from, event)).toThrow(/cannot/);
      }
    }
    expect([...invitationStates.terminal].sort()).toEqual(["accepted", "expired", "revoked"]);
  });

  it("a pending invitation past its expiry reads as expired", () => {
    const now = new Date("2026-11-25T12:00:00Z");
    expect(effectiveStatus({ status: "pending", expiresAt: new Date("2026-11-25T12:00:00Z") }, now)).toBe("expired");
    expect(effectiveStatus({ status: "pending", expiresAt: new Date("2026-11-25T12:00:01Z") }, now)).toBe("pending");
    expect(effectiveStatus({ status: "revoked", expiresAt: new Date("2026-11-25T11:00:00Z") }, now)).toBe("revoked");
  });
});
