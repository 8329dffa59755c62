import { randomFillSync } from "node:crypto";
import { z } from "zod";

/** Crockford base32, lower case: 0-9 and a-z without i, l, o, u. */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export const ID_PREFIXES = [
  "mres",
  "ws",
  "usr",
  "prod",
  "rev",
  "ver",
  "rel",
  "env",
  "dep",
  "srf",
  "acc",
  "ses",
  "inv",
  "exe",
  "evt",
  "pend",
  "ddl",
  "ntf",
  "pipe",
  "fnd",
  "qual",
  "cred",
  "bind",
  "hdl",
  "cap",
  "svc",
  "frz",
  "adj",
  "fix",
  "upl",
  "dom",
  "wb",
  "ctx",
  "aud",
  "pay",
  "ivc",
  "rfd",
  // Our own resources that the spec does not name.
  "tok",
  "mem",
  "idem",
  "whk",
  "wat",
  "dlq",
  "rsv",
  "rsl",
  // Invitations to a workspace (inv_ is the spec's invocation).
  "invt",
  // Billing (docs/decisions.md "Billing"): rate card versions, grants, ledger entries.
  "rcv",
  "gnt",
  "led",
  // Billing test clocks (issue #36).
  "clk",
  // Credit notes against invoices (issue #36 item 5).
  "crn",
  // Billing collection (issue #36): saved payment methods, their setups, invoice collection attempts.
  "pmt",
  "pms",
  "col",
  // Managed resource backups and restores (issue #33).
  "bak",
  "rst",
  // Managed resource credentials (login roles; issue #33 item 5).
  "mcred",
  // Run-log segments, push hooks and their deliveries (issue #37).
  "lseg",
  "hook",
  "hkd",
] as const;
export type TIdPrefix = (typeof ID_PREFIXES)[number];

export const PLATFORM_WORKSPACE_ID = "ws_platform";

const BODY = "[0-7][0-9a-hjkmnp-tv-z]{25}";
export const ID_BODY_RE = new RegExp(`^${BODY}$`);
export const ANY_ID_RE = new RegExp(`^(${ID_PREFIXES.join("|")})_${BODY}$`);

export function idPattern(prefix: TIdPrefix): RegExp {
  return new RegExp(`^${prefix}_${BODY}$`);
}

let lastTime = -1;
let lastRandom: number[] = [];

// Random bytes are taken from a pool refilled 4 KiB at a time (as the uuid package does): one
// RAND_bytes call per 256 ids instead of one per id, which showed in the Bridge's CPU profile.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolAt = POOL_BYTES;
function random16(): Buffer {
  if (poolAt + 16 > POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += 16;
  return pool.subarray(poolAt - 16, poolAt);
}

/**
 * A 26-char ULID: 48-bit millisecond time then 80 random bits. Monotonic
 * within a process: ids made in the same millisecond increment the random
 * part, so (created_at, id) order follows creation order.
 */
export function ulid(now = Date.now()): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  if (now === lastTime && incrementRandom(lastRandom)) {
    return time + lastRandom.map((d) => ALPHABET[d]).join("");
  }
  const rnd = random16();
  // Leave headroom in the top digit so increments within a millisecond never overflow in practice.
  lastRandom = Array.from(rnd, (b, i) => (i === 0 ? b & 15 : b & 31));
  lastTime = now;
  return time + lastRandom.map((d) => ALPHABET[d]).join("");
}

function incrementRandom(digits: number[]): boolean {
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i]! < 31) {
      digits[i]! += 1;
      return true;
    }
    digits[i] = 0;
  }
  return false;
}

export function newId(prefix: TIdPrefix): string {
  return `${prefix}_${ulid()}`;
}

export function isId(prefix: TIdPrefix, value: string): boolean {
  return idPattern(prefix).test(value);
}

/** zod schema for one id prefix, e.g. zId("prod"). */
export function zId(prefix: TIdPrefix) {
  return z.string().regex(idPattern(prefix), `must be a ${prefix}_ id`);
}

/** Workspace ids: a ws_ id or the special `ws_platform`. */
export const zWorkspaceId = z
  .string()
  .refine((v) => v === PLATFORM_WORKSPACE_ID || isId("ws", v), "must be a ws_ id or ws_platform");

/** An id of any prefix the spec lists (section 2.1). */
export const zAnyId = z.string().regex(ANY_ID_RE, "must be an id with a known prefix");
