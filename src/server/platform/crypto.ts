import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "./env";
import { logger } from "./logger";

/**
 * Envelope sealing for secrets at rest: AES-256-GCM under a key-encryption
 * key (KEK) from CAPSTAN_MASTER_KEY (32 bytes, base64 or hex). The sealed
 * string names its KEK id so keys can rotate: CAPSTAN_PREVIOUS_MASTER_KEYS
 * (comma-separated) still decrypt, and only the current key encrypts.
 * With no key configured (embedded default) one is generated into the data
 * directory on first start, with a loud warning.
 */
type TKek = { id: string; key: Buffer };

function parseKey(raw: string): Buffer {
  const trimmed = raw.trim();
  const buf = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (buf.length !== 32) throw new Error("CAPSTAN_MASTER_KEY must be 32 bytes, base64 or hex encoded");
  return buf;
}

export function kekId(key: Buffer): string {
  return "kek_" + createHash("sha256").update(key).digest("hex").slice(0, 16);
}

let keys: { current: TKek; all: Map<string, TKek> } | undefined;

function loadKeys() {
  if (keys) return keys;
  const cfg = env();
  let raw = cfg.CAPSTAN_MASTER_KEY;
  if (!raw) {
    const file = path.resolve(cfg.CAPSTAN_DATA_DIR, "master.key");
    if (!existsSync(file)) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, randomBytes(32).toString("base64") + "\n", { mode: 0o600 });
      logger.warn("crypto.master_key_generated", {
        file,
        warning:
          "CAPSTAN_MASTER_KEY is unset: generated a key-encryption key on disk. Set CAPSTAN_MASTER_KEY in production and keep it out of the data directory.",
      });
    }
    raw = readFileSync(file, "utf8");
  }
  const current = { key: parseKey(raw), id: "" };
  current.id = kekId(current.key);
  const all = new Map<string, TKek>([[current.id, current]]);
  for (const old of cfg.CAPSTAN_PREVIOUS_MASTER_KEYS.split(",").filter(Boolean)) {
    const key = parseKey(old);
    all.set(kekId(key), { id: kekId(key), key });
  }
  keys = { current, all };
  return keys;
}

export function resetKeyCache(): void {
  keys = undefined;
}

export function currentKekId(): string {
  return loadKeys().current.id;
}

/** `v1.<kek id>.<iv>.<tag>.<ciphertext>` (base64url parts). `aad` binds the secret to its row. */
export function seal(plaintext: string, aad = ""): string {
  const { current } = loadKeys();
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", current.key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return ["v1", current.id, iv.toString("base64url"), tag.toString("base64url"), ct.toString("base64url")].join(".");
}

export function unseal(sealed: string, aad = ""): string {
  const [v, id, iv, tag, ct] = sealed.split(".");
  if (v !== "v1" || !id || !iv || !tag || ct === undefined) throw new Error("not a sealed value");
  const kek = loadKeys().all.get(id);
  if (!kek) throw new Error(`sealed with unknown key-encryption key ${id}`);
  const decipher = createDecipheriv("aes-256-gcm", kek.key, Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
}

/** The key-encryption key a sealed value names (for rotation sweeps), or null when it is not a sealed value. */
export function sealedKekId(sealed: string): string | null {
  const [v, id] = sealed.split(".");
  return v === "v1" && id ? id : null;
}

/** Whether a sealed value should be re-sealed under the current master key. */
export function needsReseal(sealed: string): boolean {
  const id = sealedKekId(sealed);
  return id !== null && id !== currentKekId();
}

const derived = new Map<string, Buffer>();

/**
 * HMAC-SHA256 under a key derived (HKDF) from the current master key for one
 * purpose: fingerprints that must not be guessable offline from the database
 * alone (a weak secret in a request body cannot be brute-forced from its hash).
 */
export function keyedHashHex(purpose: string, data: string): string {
  const kek = loadKeys().current;
  const cacheKey = `${kek.id}:${purpose}`;
  let key = derived.get(cacheKey);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", kek.key, Buffer.alloc(0), `capstan/${purpose}`, 32));
    derived.set(cacheKey, key);
  }
  return createHmac("sha256", key).update(data).digest("hex");
}

export function sha256Hex(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/**
 * A workspace's data key (backups of its managed databases): HKDF-SHA256 of
 * a key-encryption key with the workspace id as info, so every workspace's
 * backups have their own key and nothing per workspace is stored. `kek` picks
 * an older master key (recorded with each backup) so backups made before a
 * master-key rotation still decrypt while that key is listed as previous.
 */
export function workspaceDataKey(workspaceId: string, kek?: string): { kekId: string; key: Buffer } {
  const k = loadKeys();
  const chosen = kek ? k.all.get(kek) : k.current;
  if (!chosen) throw new Error(`unknown key-encryption key ${kek}`);
  return {
    kekId: chosen.id,
    key: Buffer.from(hkdfSync("sha256", chosen.key, Buffer.alloc(0), `capstan:workspace-data:${workspaceId}`, 32)),
  };
}

/**
 * A key for one purpose (HKDF-SHA256 of a key-encryption key): the current
 * master key's, or an older one's by id while it is listed as previous, so
 * what was signed before a rotation still verifies (presigned object URLs).
 */
export function purposeKey(purpose: string, kek?: string): { kekId: string; key: Buffer } | null {
  const k = loadKeys();
  const chosen = kek ? k.all.get(kek) : k.current;
  if (!chosen) return null;
  return {
    kekId: chosen.id,
    key: Buffer.from(hkdfSync("sha256", chosen.key, Buffer.alloc(0), `capstan/${purpose}`, 32)),
  };
}
