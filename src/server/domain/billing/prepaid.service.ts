import { onChange } from "@/server/platform/change-signals";
import { db } from "@/server/platform/db/client";
import type { THold } from "@/server/domain/usage/reservations.service";
import { priceCall, type TCurrency } from "./money";
import { rateCardInForce } from "./rate-card-reads.service";

/**
 * Prepaid tiers (docs/decisions.md "Prepaid, Stripe, renewal"): a
 * workspace whose tier is `prepaid` holds each call's maximum price from its
 * wallet when the call's budget is reserved (same statement), and pays the
 * actual price when it settles. Postpaid workspaces (the default) hold
 * nothing: their priced calls are posted to the ledger afterwards.
 */

const TTL_MS = 5_000;
const modes = new Map<string, { at: number; currency: TCurrency | null }>();

// A subscription change signals "plan" for the workspace; a tier edit signals it for all (null).
onChange("plan", (id) => (id === null ? modes.clear() : modes.delete(id)));

/** The wallet currency of a prepaid workspace, or null when it is postpaid (no subscription, or a postpaid tier). */
export async function prepaidCurrency(workspaceId: string): Promise<TCurrency | null> {
  const hit = modes.get(workspaceId);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.currency;
  // Bridge hot path (cached): one raw statement joining the platform tier catalogue; it names the workspace itself.
  // Raw SQL on purpose: the Bridge's hot path (cached); it joins the platform tier catalogue and names the workspace itself.
  const rows = await db().$queryRaw<{ billing_mode: string; currency: string }[]>`
    SELECT t.billing_mode, t.currency FROM subscriptions s JOIN subscription_tiers t ON t.tier = s.tier WHERE s.workspace_id = ${workspaceId}`;
  const currency = rows[0]?.billing_mode === "prepaid" ? (rows[0].currency as TCurrency) : null;
  modes.set(workspaceId, { at: Date.now(), currency });
  return currency;
}

export type TPrepaidHold = { hold: THold | null } | { refused: string };

/**
 * The hold of an ai.generate call: the highest price any candidate binding's
 * card (in force at the call's start) could charge for `tokens` (all at the
 * dearer token price, plus the per-call price). The actual price never
 * exceeds it: the settled tokens are capped at the reservation. A prepaid
 * call is refused when a candidate's card is in another currency than the
 * wallet's (it could not be paid from it). No card: the call is unpriced and
 * holds 0 (admitted while the wallet is above zero).
 */
export async function aiHold(
  workspaceId: string,
  candidates: Array<{ provider: string; model: string }>,
  tokens: number,
  at: Date,
): Promise<TPrepaidHold> {
  const currency = await prepaidCurrency(workspaceId);
  if (!currency) return { hold: null };
  let micros = BigInt(0);
  const seen = new Set<string>();
  for (const c of candidates) {
    const key = `${c.provider}\u0000${c.model}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // Rate cards are the platform's price list (PLATFORM_GLOBAL), read through the pricing's own cache.
    const v = await rateCardInForce(c.provider, c.model, at);
    if (!v) continue;
    if (v.currency !== currency)
      return {
        refused: `the ${c.provider}/${c.model} rate card is in ${v.currency}, the prepaid wallet in ${currency}`,
      };
    const dearer =
      v.inputTokensPerMillion > v.outputTokensPerMillion ? v.inputTokensPerMillion : v.outputTokensPerMillion;
    const max = priceCall(
      { inputTokensPerMillion: dearer, outputTokensPerMillion: dearer, perCall: v.perCall },
      { inputTokens: 0, outputTokens: tokens, calls: 1 },
    );
    if (max > micros) micros = max;
  }
  return { hold: { currency, micros } };
}

/** Runtime is not priced yet: a prepaid workspace holds 0, so it is admitted only while its wallet is above zero. */
export async function flatHold(workspaceId: string): Promise<THold | null> {
  const currency = await prepaidCurrency(workspaceId);
  return currency ? { currency, micros: BigInt(0) } : null;
}
