import type { RateCardVersion } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { AppError, notFound } from "@/server/platform/errors";
import { newId, PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { keysetArgs, toPage, type TListQuery, type TPage } from "@/server/platform/pagination";
import { iso } from "@/server/platform/time";
import type { TRateCard } from "./billing.contract";
import { fromWire, priceCall, toWire, type TCurrency } from "./money";
import { METERED_PROVIDER } from "./pricing-metered.service";
import { rateCardInForce, signalRateCardChange } from "./rate-card-reads.service";

/**
 * Rate cards (docs/decisions.md "Billing"): every PUT is a new immutable
 * version effective from a time (never in the past); a call is priced with
 * the version in force at its start.
 * Platform-scoped by design: rate cards are the platform's price list
 * (PLATFORM_GLOBAL in db/scoped.ts), so every query here is on db().
 */

type TCaller = { userId: string; correlationId: string };
/** Clock skew allowed between the caller and us before an effective_from counts as "in the past". */
const PAST_TOLERANCE_MS = 5_000;

function toCard(v: RateCardVersion, next: Date | null): TRateCard {
  return {
    id: v.id,
    provider: v.provider,
    model: v.model,
    currency: v.currency as TCurrency,
    prices: {
      input_tokens_per_million: toWire(v.inputTokensPerMillion),
      output_tokens_per_million: toWire(v.outputTokensPerMillion),
      per_call: toWire(v.perCall),
      per_cpu_second: toWire(v.perCpuSecond),
      per_gb_month: toWire(v.perGbMonth),
      per_message: toWire(v.perMessage),
    },
    effective_from: iso(v.effectiveFrom),
    effective_until: next ? iso(next) : null,
    created_by: v.createdBy,
    created_at: iso(v.createdAt),
  };
}

async function versionsOf(provider: string, model: string): Promise<RateCardVersion[]> {
  // platform-scoped: rate cards are the platform's price list (PLATFORM_GLOBAL).
  return db().rateCardVersion.findMany({ where: { provider, model }, orderBy: { effectiveFrom: "asc" } });
}

/** Versions oldest first -> wire cards with effective_until = the next version's start. */
function withUntil(versions: RateCardVersion[]): TRateCard[] {
  return versions.map((v, i) => toCard(v, versions[i + 1]?.effectiveFrom ?? null));
}

function inForce(versions: RateCardVersion[], at: Date): RateCardVersion | null {
  let found: RateCardVersion | null = null;
  for (const v of versions) if (v.effectiveFrom <= at) found = v;
  return found;
}

export type TRateCardInput = {
  currency: TCurrency;
  effective_from?: string;
  prices: {
    input_tokens_per_million: number;
    output_tokens_per_million: number;
    per_call: number;
    per_cpu_second?: number;
    per_gb_month?: number;
    per_message?: number;
  };
};

/** Which price field each of the platform's own cards (capstan/<category>) carries. */
const METERED_FIELD: Record<string, "per_cpu_second" | "per_gb_month" | "per_message"> = {
  runtime: "per_cpu_second",
  storage: "per_gb_month",
  email: "per_message",
};

/** The platform's cards price one metered category each and nothing else; other cards never price those categories. */
function checkPrices(provider: string, model: string, p: TRateCardInput["prices"]): void {
  const bad = (path: string, message: string) =>
    new AppError("validation_failed", `${provider}/${model}: ${path} ${message}`, {
      reason: "price_not_applicable",
      errors: [{ path: `/prices/${path}`, message }],
    });
  if (provider === METERED_PROVIDER) {
    const field = METERED_FIELD[model];
    if (!field)
      throw new AppError(
        "validation_failed",
        `${METERED_PROVIDER}/${model} is not a metered category (runtime, storage, email)`,
        {
          reason: "unknown_metered_category",
          errors: [{ path: "/model", message: "must be runtime, storage or email" }],
        },
      );
    for (const k of [
      "input_tokens_per_million",
      "output_tokens_per_million",
      "per_call",
      "per_cpu_second",
      "per_gb_month",
      "per_message",
    ] as const) {
      if (k !== field && (p[k] ?? 0) !== 0) throw bad(k, `must be 0: this card prices ${model} by ${field}`);
    }
    return;
  }
  for (const k of ["per_cpu_second", "per_gb_month", "per_message"] as const) {
    if ((p[k] ?? 0) !== 0)
      throw bad(
        k,
        `must be 0: only the platform's cards (${METERED_PROVIDER}/runtime, /storage, /email) price metered categories`,
      );
  }
}

export async function putRateCard(
  caller: TCaller,
  provider: string,
  model: string,
  input: TRateCardInput,
): Promise<TRateCard> {
  const now = new Date();
  const from = input.effective_from ? new Date(input.effective_from) : now;
  if (from.getTime() < now.getTime() - PAST_TOLERANCE_MS) {
    throw new AppError(
      "validation_failed",
      "effective_from is in the past: a rate card version only prices calls that start after it exists",
      {
        reason: "effective_from_in_past",
        errors: [{ path: "/effective_from", message: "must not be in the past" }],
      },
    );
  }
  checkPrices(provider, model, input.prices);
  const prices = {
    inputTokensPerMillion: fromWire(input.prices.input_tokens_per_million),
    outputTokensPerMillion: fromWire(input.prices.output_tokens_per_million),
    perCall: fromWire(input.prices.per_call),
    perCpuSecond: fromWire(input.prices.per_cpu_second ?? 0),
    perGbMonth: fromWire(input.prices.per_gb_month ?? 0),
    perMessage: fromWire(input.prices.per_message ?? 0),
  };
  try {
    // platform-scoped: rate cards are the platform's price list (PLATFORM_GLOBAL).
    const card = await db().$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`rate-card:${provider}/${model}`}, 0))`;
      const versions = await tx.rateCardVersion.findMany({
        where: { provider, model },
        orderBy: { effectiveFrom: "asc" },
      });
      const current = inForce(versions, now);
      const latest = versions[versions.length - 1];
      // Same prices as the version in force, nothing scheduled after it, no explicit start: the PUT is a no-op.
      if (
        !input.effective_from &&
        current &&
        current === latest &&
        current.currency === input.currency &&
        current.inputTokensPerMillion === prices.inputTokensPerMillion &&
        current.outputTokensPerMillion === prices.outputTokensPerMillion &&
        current.perCall === prices.perCall &&
        current.perCpuSecond === prices.perCpuSecond &&
        current.perGbMonth === prices.perGbMonth &&
        current.perMessage === prices.perMessage
      ) {
        return toCard(current, null);
      }
      const row = await tx.rateCardVersion.create({
        data: {
          id: newId("rcv"),
          provider,
          model,
          currency: input.currency,
          ...prices,
          effectiveFrom: from,
          createdBy: caller.userId,
          createdAt: now,
        },
      });
      await writeAudit(tx, {
        workspaceId: PLATFORM_WORKSPACE_ID,
        actor: { kind: "user", id: caller.userId },
        action: "billing.rate_card_updated",
        target: { kind: "rate_card_version", id: row.id },
        correlationId: caller.correlationId,
        details: {
          provider,
          model,
          currency: input.currency,
          prices: input.prices,
          effective_from: iso(from),
          previous_version_id: current?.id ?? null,
        },
      });
      const all = [...versions, row].sort((a, b) => a.effectiveFrom.getTime() - b.effectiveFrom.getTime());
      return withUntil(all).find((c) => c.id === row.id)!;
    });
    // After the commit: the pricing caches of every process read the versions again (rate-card-reads.service.ts).
    signalRateCardChange(provider, model);
    return card;
  } catch (err) {
    if ((err as { code?: string }).code === "P2002") {
      throw new AppError("conflict", `a version of ${provider}/${model} already starts at ${iso(from)}`, {
        reason: "rate_card_version_exists",
      });
    }
    throw err;
  }
}

export async function listRateCards(q: TListQuery & { provider?: string; model?: string }): Promise<TPage<TRateCard>> {
  const args = keysetArgs(q);
  // platform-scoped: rate cards are the platform's price list (PLATFORM_GLOBAL).
  const rows = await db().rateCardVersion.findMany({
    ...args,
    where: { ...args.where, ...(q.provider ? { provider: q.provider } : {}), ...(q.model ? { model: q.model } : {}) },
  });
  // effective_until needs each row's successor: one query for the models on this page.
  const keys = [...new Set(rows.map((r) => `${r.provider}\u0000${r.model}`))];
  const successors = new Map<string, Date | null>();
  for (const key of keys) {
    const [provider, model] = key.split("\u0000") as [string, string];
    const versions = await versionsOf(provider, model);
    versions.forEach((v, i) => successors.set(v.id, versions[i + 1]?.effectiveFrom ?? null));
  }
  return toPage(rows, q, (r) => toCard(r, successors.get(r.id) ?? null));
}

export async function getRateCard(
  provider: string,
  model: string,
): Promise<{ current: TRateCard | null; versions: TRateCard[] }> {
  const versions = await versionsOf(provider, model);
  if (!versions.length) throw notFound(`Rate card ${provider}/${model}`);
  const cards = withUntil(versions);
  const current = inForce(versions, new Date());
  return { current: current ? cards.find((c) => c.id === current.id)! : null, versions: cards.reverse() };
}

export type TCharge = { micros: bigint; currency: TCurrency; rateCardVersionId: string };

/**
 * The price of a completed ai.generate call with the card version in force at
 * its start (`requestedAt`); null when no card covers the provider/model then.
 * Read through the versions cache (rate-card-reads.service.ts: a new version
 * is used at the latest RATE_CARD_TTL_MS after its commit, at once in the
 * process that published it).
 */
export async function priceAiCall(
  provider: string,
  model: string,
  requestedAt: Date,
  tokens: { input: number; output: number },
): Promise<TCharge | null> {
  const v = await rateCardInForce(provider, model, requestedAt);
  if (!v) return null;
  const micros = priceCall(v, { inputTokens: tokens.input, outputTokens: tokens.output, calls: 1 });
  return { micros, currency: v.currency, rateCardVersionId: v.id };
}
