import { describe, expect, it } from "vitest";
import { keySchedules, type TKeyRow } from "./signing-keys.service";

const T0 = Date.parse("2026-11-25T12:00:00.000Z");
const at = (s: number) => new Date(T0 + s * 1000);
const row = (
  kid: string,
  activates: number,
  signedUntil: number | null = null,
  retired: number | null = null,
): TKeyRow => ({
  kid,
  status: "active",
  createdAt: at(activates - 360),
  activatesAt: at(activates),
  signedUntil: signedUntil === null ? null : at(signedUntil),
  retiredAt: retired === null ? null : at(retired),
  retiredReason: retired === null ? null : "emergency",
});
const states = (rows: TKeyRow[], now: number) =>
  Object.fromEntries(keySchedules(rows, T0 + now * 1000, 60).map((s) => [s.kid, s.state]));

describe("signing key schedule", () => {
  const a = row("key_a", 0, 4000);
  const b = row("key_b", 1000, 1200);

  it("next until activation, then active; the older key retires after max(successor activation, its last token) + skew", () => {
    expect(states([a, b], 500)).toEqual({ key_a: "active", key_b: "next" });
    expect(states([a, b], 1000)).toEqual({ key_a: "retiring", key_b: "active" });
    expect(keySchedules([a, b], T0 + 1000_000, 60).find((s) => s.kid === "key_a")!.retiresAt).toEqual(at(4060));
    expect(states([a, b], 4059)).toEqual({ key_a: "retiring", key_b: "active" });
    expect(states([a, b], 4060)).toEqual({ key_a: "retired", key_b: "active" });
  });

  it("a key whose tokens expired before its successor activated retires skew after the activation", () => {
    const early = row("key_c", 0, 100);
    expect(keySchedules([early, b], T0, 60)[0]!.retiresAt).toEqual(at(1060));
  });

  it("an emergency retirement wins over the schedule; the newest key never retires on its own", () => {
    expect(states([row("key_a", 0, 4000, 10), row("key_e", 10)], 11)).toEqual({ key_a: "retired", key_e: "active" });
    expect(keySchedules([b], T0 + 10_000_000, 60)[0]).toMatchObject({
      state: "active",
      retiresAt: null,
      successor: null,
    });
  });
});
