import type { Release } from "@/generated/prisma/client";
import { db } from "@/server/platform/db/client";
import { AppError } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { retire } from "@/server/domain/deployments/lifecycle";
import { replacementInFlight } from "@/server/domain/deployments/replace.service";
import { moveRelease, type TReleaseCtx } from "./release-moves";
import { qualifiedRevisions } from "./versions.service";

/**
 * The release-window worker. `now` is a parameter so tests move the clock
 * instead of sleeping. Per tick:
 *  - pending_approval, draft, ready whose window is over -> blocked (window_ended);
 *  - draft, ready whose version was disqualified -> blocked (version_unqualified);
 *  - ready whose deployment ended without becoming active -> blocked (deployment_failed);
 *  - ready whose deployment is active once starts_at is reached -> live, and the
 *    product's other live releases of that channel -> retired (superseded, or
 *    rolled_back when a rollback put this one back);
 *  - live whose window is over -> retired (window_ended), its deployment stopped;
 *  - live whose deployment is no longer active -> retired (deployment_ended),
 *    unless it failed with its host and its replacement is on its way (the
 *    replacement takes the release over once active).
 * Every move is compare-and-set: a concurrent change just waits for the next tick.
 */
const system = { kind: "system" as const, id: null };

export async function processReleaseWindows(now = new Date()): Promise<number> {
  // platform-scoped: the release-window worker spans every workspace's releases.
  const rows = await db().release.findMany({
    where: { status: { in: ["pending_approval", "draft", "ready", "live"] } },
    orderBy: { createdAt: "asc" },
    take: 200,
  });
  const qualified = await qualifiedRevisions([...new Set(rows.map((r) => r.revisionId))]);
  let moved = 0;
  // Releases going live first, so a newer release retires the one it replaces as `superseded`.
  for (const r of [...rows.filter((x) => x.status !== "live"), ...rows.filter((x) => x.status === "live")]) {
    try {
      if (await step(r, now, qualified.has(r.revisionId))) moved++;
    } catch (err) {
      if (err instanceof AppError && err.reason === "concurrent_change") continue;
      logger.error("release.window_failed", { release_id: r.id, error: String(err) });
    }
  }
  return moved;
}

const over = (r: Release, now: Date) => r.endsAt !== null && r.endsAt <= now;

async function step(r: Release, now: Date, qualified: boolean): Promise<boolean> {
  const cid = newId("evt");
  // platform-scoped: the worker's moves of a release read above (its row names the workspace).
  const inTx = <T>(fn: (ctx: TReleaseCtx) => Promise<T>) =>
    db().$transaction((tx) => fn({ tx, actor: system, correlationId: cid }));
  const dep = r.deploymentId ? await db().deployment.findUnique({ where: { id: r.deploymentId } }) : null;
  // A deployment lost with its host is being placed again (replace.service.ts): the release waits for its replacement.
  if (dep && dep.status === "failed" && !over(r, now) && (await replacementInFlight(dep.id))) return false;

  if (r.status === "live") {
    if (over(r, now) || dep?.status !== "active") {
      await inTx((ctx) => moveRelease(ctx, r, "retire", over(r, now) ? "window_ended" : "deployment_ended"));
      if (dep?.status === "active") await retire(dep, "stop", "stopped", system, cid);
      return true;
    }
    return false;
  }
  if (over(r, now)) {
    await inTx((ctx) => moveRelease(ctx, r, "block", "window_ended"));
    if (dep?.status === "active" || dep?.status === "planned" || dep?.status === "applying")
      await retire(dep, "stop", "stopped", system, cid);
    return true;
  }
  // A rollback puts back what production ran before, without a new evaluation (docs/decisions.md "The production path: staging, promotion, rollback").
  if ((r.status === "draft" || r.status === "ready") && !qualified && r.reasonCode !== "rollback") {
    await inTx((ctx) => moveRelease(ctx, r, "block", "version_unqualified"));
    return true;
  }
  if (r.status !== "ready" || !dep) return false;
  if (dep.status === "planned" || dep.status === "applying") return false;
  if (dep.status !== "active") {
    await inTx((ctx) => moveRelease(ctx, r, "block", "deployment_failed"));
    return true;
  }
  if (r.startsAt > now) return false;
  await inTx(async (ctx) => {
    // One live release per product and channel (staging, production): the newer one takes over.
    const others = await ctx.tx.release.findMany({
      where: { productId: r.productId, channel: r.channel, status: "live", id: { not: r.id } },
    });
    for (const o of others)
      await moveRelease(ctx, o, "retire", r.reasonCode === "rollback" ? "rolled_back" : "superseded");
    await moveRelease(ctx, r, "go_live", null);
  });
  return true;
}
