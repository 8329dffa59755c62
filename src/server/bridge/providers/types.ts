/**
 * What every provider adapter shares, kept below the Bridge so that the adapters import nothing of the Bridge or the
 * domain (a binding test in domain/credentials uses them too).
 */

/** What a provider call used, in the unit its capability is priced in. */
export type TUsage = { units: number; unit: "tokens" | "ms" | "calls" | "bytes" };

/**
 * A provider's failure: an outage (fallback may try the next binding) or a rejection (a 4xx: final,
 * provider_rejected).
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: "unavailable" | "rejected",
    message: string,
  ) {
    super(message);
  }
}
