import { exportJWK, generateKeyPair } from "jose";
import type { SigningKey } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { onChange, signalChange } from "@/server/platform/change-signals";
import { currentKekId, seal } from "@/server/platform/crypto";
import { db, type TTx } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { conflict } from "@/server/platform/errors";
import { newId, PLATFORM_WORKSPACE_ID, ulid } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";

/**
 * Signing keys and their rotation schedule (issue #25, docs/decisions.md
 * "Rotation without downtime"). A key's state is a function of its stored
 * timestamps and the clock, so every process agrees on it without a worker:
 *
 *   next      published in the JWKS, not signing yet (until activates_at)
 *   active    the newest key whose activates_at has passed: it signs
 *   retiring  superseded by a newer active key; still published until every
 *             token it signed has expired: max(successor's activates_at,
 *             signed_until) + clock skew
 *   retired   gone from the JWKS; tokens it signed no longer verify
 *
 * activates_at = publication + the JWKS cache lifetime (Cache-Control max-age)
 * + this service's own key cache + clock skew, so every verifier that honours
 * the cache header has fetched the key before anything is signed with it.
 * An emergency rotation activates its key at once and retires every other
 * key at once. State changes are written back to `status` (compare-and-set,
 * so one process writes each) with an audit record in ws_platform.
 */
export const SIGNING_ALG = "ES256";
export type TKeyState = "next" | "active" | "retiring" | "retired";

export type TKeyRow = Pick<
  SigningKey,
  "kid" | "status" | "createdAt" | "activatesAt" | "signedUntil" | "retiredAt" | "retiredReason"
>;

export type TKeySchedule = {
  kid: string;
  state: TKeyState;
  activatesAt: Date;
  /** When it leaves (or left) the JWKS; null while no newer key exists. */
  retiresAt: Date | null;
  /** The key that supersedes it (null for the newest). */
  successor: string | null;
};

export type TRotationTimings = {
  jwksMaxAgeSeconds: number;
  cacheMs: number;
  skewSeconds: number;
  /** How long a new key is published before it signs. */
  publishLeadSeconds: number;
};

export function rotationTimings(): TRotationTimings {
  const e = env();
  const cacheSeconds = Math.ceil(e.CAPSTAN_SIGNING_KEY_CACHE_MS / 1000);
  return {
    jwksMaxAgeSeconds: e.CAPSTAN_JWKS_MAX_AGE_SECONDS,
    cacheMs: e.CAPSTAN_SIGNING_KEY_CACHE_MS,
    skewSeconds: e.CAPSTAN_JWT_CLOCK_SKEW_SECONDS,
    publishLeadSeconds: e.CAPSTAN_JWKS_MAX_AGE_SECONDS + cacheSeconds + e.CAPSTAN_JWT_CLOCK_SKEW_SECONDS,
  };
}

const order = (a: TKeyRow, b: TKeyRow) =>
  a.activatesAt.getTime() - b.activatesAt.getTime() || (a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0);

/** The schedule of every key at `now` (pure: tests call it with any clock). */
export function keySchedules(rows: readonly TKeyRow[], now: number, skewSeconds: number): TKeySchedule[] {
  const sorted = [...rows].sort(order);
  return sorted.map((row, i) => {
    const successor = sorted[i + 1] ?? null;
    let retiresAt: Date | null = row.retiredAt;
    if (!retiresAt && successor) {
      const lastToken = Math.max(successor.activatesAt.getTime(), row.signedUntil?.getTime() ?? 0);
      retiresAt = new Date(lastToken + skewSeconds * 1000);
    }
    let state: TKeyState;
    if (row.retiredAt && row.retiredAt.getTime() <= now) state = "retired";
    else if (now < row.activatesAt.getTime()) state = "next";
    else if (successor && successor.activatesAt.getTime() <= now)
      state = retiresAt && retiresAt.getTime() <= now ? "retired" : "retiring";
    else state = "active";
    return { kid: row.kid, state, activatesAt: row.activatesAt, retiresAt, successor: successor?.kid ?? null };
  });
}

/** Rows that may still be published or sign (retired rows are history). */
export async function liveKeyRows(client: TTx | ReturnType<typeof db> = db()): Promise<SigningKey[]> {
  return client.signingKey.findMany({
    where: { retiredAt: null },
    orderBy: [{ activatesAt: "asc" }, { kid: "asc" }],
    omit: { privateJwkSealed: false },
  });
}

/**
 * Process-wide key cache lives on globalThis (jwt.ts); a rotation drops it in
 * this process at once and in every other within the NOTIFY delay (so an
 * emergency rotation's retired keys stop verifying everywhere).
 */
export function invalidateKeyCache(): void {
  signalChange("signing-keys");
}
onChange("signing-keys", () => {
  (globalThis as unknown as { __capstanKeys?: unknown }).__capstanKeys = undefined;
});

export type TRotateOptions = {
  emergency?: boolean;
  /** Who asked (audit actor); the CLI passes a system actor. */
  actor?: { kind: "user" | "system"; id: string | null };
  correlationId: string;
  reason?: string;
};

export type TRotation = {
  kid: string;
  state: TKeyState;
  activates_at: string;
  /** Keys the emergency rotation retired at once (empty otherwise). */
  retired: string[];
  /** The key that signs until the new one activates (normal rotation). */
  previous: string | null;
};

async function newKeyMaterial(): Promise<{ kid: string; publicJwk: object; privateJwkSealed: string }> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = `key_${ulid()}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
  return { kid, publicJwk, privateJwkSealed: seal(JSON.stringify(privateJwk), `signing_key:${kid}`) };
}

async function audit(
  tx: TTx,
  opts: TRotateOptions,
  action: "credential.created" | "credential.revoked",
  kid: string,
  details: Record<string, unknown>,
) {
  await writeAudit(tx, {
    workspaceId: PLATFORM_WORKSPACE_ID,
    actor: opts.actor ?? { kind: "system", id: null },
    action,
    target: { kind: "signing_key", id: kid },
    correlationId: opts.correlationId,
    details,
  });
}

/**
 * Adds a signing key. Normal: state `next`, signing from now + the publish
 * lead; 409 while another key is still `next`. Emergency: active at once, and
 * every other key is retired at once (tokens they signed stop verifying).
 * One rotation at a time (transaction advisory lock).
 */
export async function rotateSigningKey(opts: TRotateOptions): Promise<TRotation> {
  const t = rotationTimings();
  const material = await newKeyMaterial();
  const result = await db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('capstan:signing_keys', 0))`;
    const rows = await liveKeyRows(tx);
    const now = Date.now();
    const schedules = keySchedules(rows, now, t.skewSeconds);
    const pending = schedules.find((s) => s.state === "next");
    if (pending && !opts.emergency) {
      throw conflict(
        `Signing key ${pending.kid} is already waiting to activate (at ${pending.activatesAt.toISOString()}); rotate again after that, or use an emergency rotation`,
        "signing_key_rotation_in_progress",
      );
    }
    const live = schedules.filter((s) => s.state !== "retired");
    const immediate = opts.emergency || live.length === 0;
    const activatesAt = new Date(immediate ? now : now + t.publishLeadSeconds * 1000);
    await tx.signingKey.create({
      data: {
        kid: material.kid,
        alg: SIGNING_ALG,
        publicJwk: material.publicJwk,
        privateJwkSealed: material.privateJwkSealed,
        kekId: currentKekId(),
        status: immediate ? "active" : "next",
        activatesAt,
      },
    });
    const signer = [...live].reverse().find((s) => s.state === "active") ?? null;
    await audit(tx, opts, "credential.created", material.kid, {
      step: "published",
      state: immediate ? "active" : "next",
      activates_at: activatesAt.toISOString(),
      emergency: Boolean(opts.emergency),
      previous_kid: signer?.kid ?? null,
      reason: opts.reason ?? null,
    });
    const retired: string[] = [];
    if (opts.emergency) {
      const at = new Date(now);
      for (const s of live) {
        const r = await tx.signingKey.updateMany({
          where: { kid: s.kid, retiredAt: null },
          data: { status: "retired", retiredAt: at, retiredReason: "emergency" },
        });
        if (r.count !== 1) continue;
        retired.push(s.kid);
        await audit(tx, opts, "credential.revoked", s.kid, {
          step: "retired",
          emergency: true,
          replaced_by: material.kid,
          reason: opts.reason ?? null,
        });
      }
    }
    return {
      kid: material.kid,
      state: (immediate ? "active" : "next") as TKeyState,
      activates_at: activatesAt.toISOString(),
      retired,
      previous: opts.emergency ? null : (signer?.kid ?? null),
    };
  });
  invalidateKeyCache();
  return result;
}

/**
 * Creates the first key (active at once) when no key is live. Exactly one,
 * however many processes start at once (servers, workers, the CLI): the
 * check and the insert run under the rotation's transaction advisory lock,
 * so a second caller waits and then sees the first one's key. (Two first
 * keys made the older one "superseded" a moment after it was created, with a
 * retirement computed from whatever signed_until each process had read: a
 * schedule the rotation design never meant for a first key.)
 */
export async function ensureSigningKey(): Promise<void> {
  const live = await db().signingKey.count({ where: { retiredAt: null } });
  if (live > 0) return;
  const m = await newKeyMaterial();
  await db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('capstan:signing_keys', 0))`;
    if ((await tx.signingKey.count({ where: { retiredAt: null } })) > 0) return;
    await tx.signingKey.create({
      data: {
        kid: m.kid,
        alg: SIGNING_ALG,
        publicJwk: m.publicJwk,
        privateJwkSealed: m.privateJwkSealed,
        kekId: currentKekId(),
        status: "active",
        activatesAt: new Date(),
      },
    });
  });
  // Either way a key now exists that this process may not have loaded yet.
  invalidateKeyCache();
}

/**
 * Records that `kid` signed a token expiring at `expSeconds`: signed_until
 * moves to at least exp + slack (a tenth of the lifetime, 1 s..5 min), so a
 * busy signer writes once per slack, not per token (bridge tokens: once a minute).
 */
export async function noteSigned(kid: string, expSeconds: number, ttlSeconds: number): Promise<number> {
  const until = new Date((expSeconds + Math.min(300, Math.max(1, Math.ceil(ttlSeconds / 10)))) * 1000);
  await db().$executeRaw`UPDATE signing_keys SET signed_until = GREATEST(signed_until, ${until}) WHERE kid = ${kid}`;
  return until.getTime();
}

/**
 * Writes computed state changes back to `status` (compare-and-set: one
 * process wins each change and writes its audit record). Called when a
 * process reloads its key cache; never throws (the computed state is what
 * signing and verification use either way).
 */
export async function persistKeyStates(rows: readonly TKeyRow[], schedules: readonly TKeySchedule[]): Promise<void> {
  for (const s of schedules) {
    const row = rows.find((r) => r.kid === s.kid);
    if (!row || row.status === s.state) continue;
    try {
      await db().$transaction(async (tx) => {
        const retired = s.state === "retired";
        const r = await tx.signingKey.updateMany({
          where: { kid: s.kid, status: row.status, retiredAt: null },
          data: retired
            ? { status: s.state, retiredAt: s.retiresAt ?? new Date(), retiredReason: "scheduled" }
            : { status: s.state },
        });
        if (r.count !== 1) return;
        const opts = { correlationId: newId("evt") };
        if (s.state === "active") {
          const previous = schedules.find((p) => p.successor === s.kid);
          await audit(tx, opts, "credential.created", s.kid, {
            step: "activated",
            state: "active",
            previous_kid: previous?.kid ?? null,
            previous_retires_at: previous?.retiresAt?.toISOString() ?? null,
          });
        } else if (retired) {
          await audit(tx, opts, "credential.revoked", s.kid, {
            step: "retired",
            emergency: false,
            retired_at: (s.retiresAt ?? new Date()).toISOString(),
          });
        }
      });
    } catch (err) {
      logger.warn("jwt.key_state_write_failed", { kid: s.kid, error: (err as Error).message });
    }
  }
}

export type TSigningKeyView = {
  kid: string;
  alg: string;
  state: TKeyState;
  created_at: string;
  activates_at: string;
  retires_at: string | null;
  retired_at: string | null;
  retired_reason: string | null;
  signed_until: string | null;
};

/** Every key (newest first) with its computed state and when it changes. */
export async function listSigningKeys(limit = 50): Promise<TSigningKeyView[]> {
  const rows = await db().signingKey.findMany({
    orderBy: [{ activatesAt: "desc" }, { kid: "desc" }],
    take: limit,
    select: {
      kid: true,
      alg: true,
      status: true,
      createdAt: true,
      activatesAt: true,
      signedUntil: true,
      retiredAt: true,
      retiredReason: true,
    },
  });
  const schedules = new Map(keySchedules(rows, Date.now(), rotationTimings().skewSeconds).map((s) => [s.kid, s]));
  return rows.map((r) => {
    const s = schedules.get(r.kid)!;
    return {
      kid: r.kid,
      alg: r.alg,
      state: s.state,
      created_at: r.createdAt.toISOString(),
      activates_at: r.activatesAt.toISOString(),
      retires_at: s.retiresAt?.toISOString() ?? null,
      retired_at: r.retiredAt?.toISOString() ?? null,
      retired_reason: r.retiredReason,
      signed_until: r.signedUntil?.toISOString() ?? null,
    };
  });
}
