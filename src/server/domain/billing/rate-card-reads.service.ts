import { currentVersion, onChange, signalChange } from "@/server/platform/change-signals";
import { preparedQuery } from "@/server/platform/db/client";
import type { TCurrency } from "./money";

/**
 * The rate card versions of a (provider, model) on the Bridge's hot path
 * (pricing a completed ai.generate call, a prepaid call's hold): one prepared
 * statement on a miss, then an in-process cache of the whole version list,
 * future-dated versions included, so a version published ahead of its
 * effective_from is priced exactly from its first instant however long the
 * list has been cached. Versions are immutable (a trigger refuses UPDATE and
 * DELETE): the only change is a new version.
 *
 * Bound (docs/decisions.md "Billing" and "Bridge performance"): a PUT
 * signals `rate-cards` (the key) after its commit, so the very next call in
 * this process reads the list again; other processes hear it through
 * LISTEN/NOTIFY (milliseconds); if that notification is lost, the list is
 * read again after RATE_CARD_TTL_MS. So a version is in use at the latest
 * RATE_CARD_TTL_MS after its commit; a version whose effective_from is at
 * least that far after its PUT is always used exactly. A read that raced a
 * signal is not cached (it may predate the change).
 */
export const RATE_CARD_TTL_MS = 5_000;
export const RATE_CARDS_TOPIC = "rate-cards";

export type TCardVersion = {
  id: string;
  currency: TCurrency;
  inputTokensPerMillion: bigint;
  outputTokensPerMillion: bigint;
  perCall: bigint;
  effectiveFrom: Date;
};

type TRow = {
  id: string;
  currency: string;
  input: string;
  output: string;
  per_call: string;
  effective_from: Date | string;
};
const cache = new Map<string, { at: number; versions: TCardVersion[] }>();
const MAX_ENTRIES = 10_000;

export function rateCardKey(provider: string, model: string): string {
  return JSON.stringify([provider, model]);
}

/** Every version of (provider, model), oldest effective_from first. */
export async function rateCardVersions(provider: string, model: string): Promise<TCardVersion[]> {
  const key = rateCardKey(provider, model);
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < RATE_CARD_TTL_MS) return hit.versions;
  const version = currentVersion(RATE_CARDS_TOPIC);
  const rows = await preparedQuery<TRow>(
    "capstan_rate_card_versions",
    `SELECT id, currency, input_tokens_per_million::text AS input, output_tokens_per_million::text AS output, per_call::text AS per_call, effective_from
       FROM rate_card_versions WHERE provider = $1 AND model = $2 ORDER BY effective_from`,
    [provider, model],
  );
  const versions = rows.map((r) => ({
    id: r.id,
    currency: r.currency as TCurrency,
    inputTokensPerMillion: BigInt(r.input),
    outputTokensPerMillion: BigInt(r.output),
    perCall: BigInt(r.per_call),
    effectiveFrom: new Date(r.effective_from),
  }));
  if (currentVersion(RATE_CARDS_TOPIC) !== version) return versions;
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(key, { at: Date.now(), versions });
  return versions;
}

/** The version in force at `at` (the latest effective_from <= at), or null. */
export async function rateCardInForce(provider: string, model: string, at: Date): Promise<TCardVersion | null> {
  const versions = await rateCardVersions(provider, model);
  let found: TCardVersion | null = null;
  for (const v of versions) {
    if (v.effectiveFrom.getTime() <= at.getTime()) found = v;
    else break;
  }
  return found;
}

/** After a new version committed (rate-cards.service): every process reads the list again. */
export function signalRateCardChange(provider: string, model: string): void {
  signalChange(RATE_CARDS_TOPIC, rateCardKey(provider, model));
}

onChange(RATE_CARDS_TOPIC, (id) => (id === null ? cache.clear() : cache.delete(id)));

export function resetRateCardCache(): void {
  cache.clear();
}
