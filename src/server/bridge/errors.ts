import type { TResultReason } from "./bridge.contract";

/**
 * The two Bridge-internal failures. Deny ends a call with a spec 6.3 reason
 * (recorded, audited, mapped to a status by the handler); ProviderError is a
 * provider's failure, an outage (fallback may try the next binding) or a
 * rejection (a 4xx: final, provider_rejected).
 */
export class Deny extends Error {
  constructor(
    readonly reason: TResultReason,
    detail: string,
    readonly retryAfter?: string,
  ) {
    super(detail);
  }
}

export { ProviderError } from "./providers/types";
