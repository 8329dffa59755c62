import { env } from "./env";

/**
 * Structured JSON lines on stdout. Fields whose name looks secret are
 * redacted before writing, so a careless caller cannot log a credential.
 */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type TLevel = Exclude<keyof typeof LEVELS, "silent">;

// "token" only as a whole word or suffix, so max_tokens_per_call or ai_tokens stay readable.
const SECRET_KEY = /secret|password|passwd|authorization|cookie|private_?key|api[_-]?key|^token$|[_-]token$|^(access|refresh|id)[_-]?token/i;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object" || value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEY.test(k) ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

function write(level: TLevel, msg: string, fields?: Record<string, unknown>): void {
  let threshold: number;
  try {
    threshold = LEVELS[env().LOG_LEVEL];
  } catch {
    threshold = LEVELS.info;
  }
  if (LEVELS[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...(redact(fields ?? {}) as object) });
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(line + "\n");
}

export const logger = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
