import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import type { TAuditAction } from "@/server/platform/audit";
import { readCredentialSecret } from "@/server/domain/credentials/credentials.service";
import {
  bindingsInOrder,
  providerOrder,
  resetBindingReadCache,
  type TBindingRow,
} from "@/server/domain/credentials/binding-reads.service";
import { onChange } from "@/server/platform/change-signals";
import { AppError } from "@/server/platform/errors";
import { Deny, ProviderError } from "./errors";

/**
 * Provider bindings on the Bridge hot path, shared by the capabilities that
 * call workspace providers (ai.generate, email.send, storage.object):
 *
 * - the provider order of the contract (prefer first, then the allow-list;
 *   never outside it), resolved by the bindings service's bindingsInOrder,
 *   the one resolution session admission uses too;
 * - the workspace's bindings for those providers, read through the bindings
 *   service's cached read (domain/credentials/binding-reads.service.ts: a
 *   prepared statement, re-read at once after a binding or credential change
 *   signalled through LISTEN/NOTIFY, BINDINGS_TTL_MS while a listener
 *   reconnects), so a revocation reaches every process at once;
 * - the binding step's reasons: no binding at all -> binding_missing; only
 *   revoked / expired / failed ones -> binding_revoked; ready bindings of
 *   which none covers the request (the binding's own actions and
 *   capability_scope, set by the owner) -> policy_blocked;
 * - the provider call with fallback: the next candidate only on an outage
 *   and only with `fallback: listed` (audit capability.fallback); a provider
 *   4xx is provider_rejected at once; a candidate whose credential was
 *   revoked or expired is unusable (binding_revoked when all are).
 */
export { BINDINGS_TTL_MS } from "@/server/domain/credentials/binding-reads.service";
export type { TBindingRow } from "@/server/domain/credentials/binding-reads.service";

/**
 * A binding's unsealed credential secret, cached SECRET_TTL_MS per process:
 * a revoked credential revokes its bindings, whose status the binding step
 * reads live (above) before this cache is consulted, so the cache only
 * stretches an expiry by at most that long. Plaintext lives only here and in
 * the provider request.
 */
const SECRET_TTL_MS = 5_000;
const secrets = new Map<string, { value: string; until: number }>();
export async function bindingSecret(credentialId: string): Promise<string> {
  const hit = secrets.get(credentialId);
  if (hit && hit.until > Date.now()) return hit.value;
  const value = await readCredentialSecret(credentialId);
  secrets.set(credentialId, { value, until: Date.now() + SECRET_TTL_MS });
  return value;
}

/** The contract's provider fallback order: the bindings service's, shared with session admission. */
export { providerOrder };

// A binding or credential change (revocation, rotation) also drops unsealed secrets.
onChange("bindings", () => secrets.clear());

export function resetBindingCache(): void {
  resetBindingReadCache();
  secrets.clear();
}

/**
 * The ready bindings able to serve this request, in provider order. `covers`
 * says why a ready binding cannot serve it (its own policy), or null.
 * `usable` drops bindings that cannot serve the call for a technical reason
 * (e.g. no base URL) and says why, or returns null.
 */
export async function candidateBindings(
  workspaceId: string,
  entry: TCapabilityEntry,
  action: string,
  covers: (b: TBindingRow) => string | null,
): Promise<TBindingRow[]> {
  // In fallback order already (bindingsInOrder): the candidates keep it.
  const rows = await bindingsInOrder(workspaceId, entry);
  const ready = rows.filter((b) => b.status === "ready");
  if (!ready.length) {
    if (rows.length)
      throw new Deny(
        "binding_revoked",
        `the workspace's ${entry.id} bindings for the allowed providers are revoked or expired`,
      );
    throw new Deny(
      "binding_missing",
      `no ${entry.id} binding for an allowed provider (${providerOrder(entry).join(", ")})`,
    );
  }
  const reasons: string[] = [];
  const fit = ready.filter((b) => {
    const why = b.actions.includes(action) ? covers(b) : `its actions do not include ${action}`;
    if (why) reasons.push(`binding ${b.id}: ${why}`);
    return !why;
  });
  if (!fit.length)
    throw new Deny("policy_blocked", `no ready ${entry.id} binding allows this request (${reasons.join("; ")})`);
  return fit;
}

export type TAudits = Array<{ action: TAuditAction; details: Record<string, unknown> }>;

/**
 * Calls `call` on the first candidate, and on an outage on the next ones when
 * the contract says `fallback: listed`. Returns the result with the binding
 * that served it.
 */
export async function withFallback<B extends { id: string | null; provider: string }, R>(
  candidates: B[],
  fallback: "none" | "listed",
  audits: TAudits,
  call: (b: B) => Promise<R>,
  /** Errors that are no outage of `b` (a bug, not a provider): thrown as they are, no fallback. */
  rethrow: (err: unknown, b: B) => boolean = () => false,
): Promise<{ result: R; binding: B; fallbackUsed: boolean }> {
  const tried = fallback === "listed" ? candidates : candidates.slice(0, 1);
  let lastError = "no provider available";
  // A ready binding whose credential was revoked or has expired (before the expiry sweep marks the
  // binding) is unusable, not a provider outage: when every candidate is such a binding, binding_revoked.
  let onlyUnusable = true;
  for (let i = 0; i < tried.length; i++) {
    const b = tried[i]!;
    try {
      const result = await call(b);
      if (i > 0)
        audits.push({
          action: "capability.fallback",
          details: { from: tried[0]!.provider, to: b.provider, binding_id: b.id },
        });
      return { result, binding: b, fallbackUsed: i > 0 };
    } catch (err) {
      // A decision the call itself took (e.g. an object over the binding's limit) is final.
      if (err instanceof Deny || rethrow(err, b)) throw err;
      if (err instanceof ProviderError && err.kind === "rejected")
        throw new Deny("provider_rejected", `${b.provider}: ${err.message}`);
      const unusable =
        err instanceof AppError && (err.reason === "credential_revoked" || err.reason === "credential_expired");
      if (!unusable) onlyUnusable = false;
      lastError = `${b.provider}: ${(err as Error).message}`;
    }
  }
  throw new Deny(onlyUnusable ? "binding_revoked" : "provider_unavailable", lastError);
}
