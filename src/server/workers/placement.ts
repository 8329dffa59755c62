import { applyClaimed, claimPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { trackTick } from "./ticks";

/**
 * The runner's `deployments` loop. Each tick claims what this host may take
 * and starts applying it without waiting for the builds: a loop tick never
 * overlaps itself, so a tick that awaited its applies held every other
 * placement on this host back for a whole install + build + start (after a
 * lost host, its apps came back one app's start time after another instead
 * of together, outside the documented bound; test/runner-hosts-two.int.test.ts).
 * A claimed deployment counts in the host's load from its claim on, so the
 * capacity still holds; at most MAX_APPLIES builds run at once per process
 * (they compete for the host's CPU). Applies in flight are tracked like ticks,
 * so a graceful stop waits for them as it did when the tick held them.
 */
const MAX_APPLIES = 4;
const PER_TICK = 2;
const g = globalThis as unknown as { __capstanApplies?: Set<Promise<void>> };
const applying = (g.__capstanApplies ??= new Set());

export async function placeDeployments(): Promise<number> {
  const room = Math.min(PER_TICK, MAX_APPLIES - applying.size);
  if (room <= 0) return 0;
  const ids = await claimPlannedDeployments(room);
  for (const id of ids) {
    const p: Promise<void> = trackTick(applyClaimed(id)).finally(() => applying.delete(p));
    applying.add(p);
  }
  return ids.length;
}
