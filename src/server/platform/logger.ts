import pino, { type Logger } from "pino";
import { env } from "./env";

/**
 * Structured JSON lines (pino): debug and info on stdout, warn and error on
 * stderr, one object per line with `time` (ISO 8601), `level` (its name) and
 * `msg`. Secrets are kept out twice: pino's redaction paths cover every
 * secret-bearing field the code and schema know by name (top level and one
 * level down), and `redact` (also applied to audit details) censors any field
 * whose name looks secret, at any depth up to 6, so a careless caller cannot
 * log a credential under a new name either.
 */
type TLevel = "debug" | "info" | "warn" | "error";
type TThreshold = TLevel | "silent";

// "token" only as a whole word or suffix, so max_tokens_per_call or ai_tokens stay readable.
const SECRET_KEY =
  /secret|password|passwd|authorization|cookie|private_?key|api[_-]?key|^token$|[_-]token$|^(access|refresh|id)[_-]?token/i;
const CENSOR = "[redacted]";

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object" || value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEY.test(k) ? CENSOR : redact(v, depth + 1);
  }
  return out;
}

/**
 * Every secret-bearing field by name: sealed and hashed columns (schema.prisma),
 * request secrets (credentials, webhook and OIDC client secrets, passwords,
 * tokens, provider API keys), signing keys and HTTP credential headers.
 * Some (the *Token ones) do not match SECRET_KEY: the paths are what catches them.
 */
const SECRET_FIELDS = [
  "secret",
  "secretSealed",
  "secret_sealed",
  "secretHash",
  "secret_hash",
  "sealedSecret",
  "sealed_secret",
  "previousSecretSealed",
  "previous_secret_sealed",
  "previousSecretHash",
  "previous_secret_hash",
  "password",
  "passwordHash",
  "password_hash",
  "clientSecret",
  "client_secret",
  "token",
  "accessToken",
  "access_token",
  "refreshToken",
  "refresh_token",
  "idToken",
  "id_token",
  "verificationToken",
  "verification_token",
  "apiKey",
  "api_key",
  "privateKey",
  "private_key",
  "privateJwk",
  "private_jwk",
  "privateJwkSealed",
  "private_jwk_sealed",
  "authorization",
  "cookie",
  "sealed",
  "plaintext",
] as const;
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`]),
  ...["headers", "*.headers"].flatMap((h) => [
    `${h}["set-cookie"]`,
    `${h}["x-api-key"]`,
    `${h}["proxy-authorization"]`,
  ]),
];

// One pino instance per threshold; LOG_LEVEL is read at each call (tests switch it with resetEnvCache).
const instances = new Map<TThreshold, Logger<never>>();

function instance(threshold: TThreshold): Logger<never> {
  let log = instances.get(threshold);
  if (!log) {
    // Looked up at each write, not bound: tests and the capture in hostile-input replace stream.write.
    const stdout = { write: (line: string) => process.stdout.write(line) };
    const stderr = { write: (line: string) => process.stderr.write(line) };
    log = pino(
      {
        level: threshold,
        base: undefined,
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: {
          level: (label) => ({ level: label }),
          log: (fields) => redact(fields) as Record<string, unknown>,
        },
        redact: { paths: [...REDACT_PATHS], censor: CENSOR },
      },
      // dedupe: a line goes to the matching stream of the highest level only.
      pino.multistream(
        [
          { level: "debug", stream: stdout },
          { level: "warn", stream: stderr },
        ],
        { dedupe: true },
      ),
    );
    instances.set(threshold, log);
  }
  return log;
}

function threshold(): TThreshold {
  try {
    return env().LOG_LEVEL;
  } catch {
    return "info";
  }
}

function write(level: TLevel, msg: string, fields?: Record<string, unknown>): void {
  instance(threshold())[level](fields ?? {}, msg);
}

export const logger = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
