import { z } from "zod";

/**
 * The one validated view of the process environment. Everything else reads
 * configuration from here, never from process.env directly. docs/configuration.md
 * (generated from env.docs.ts) lists every variable with its default and meaning.
 */
const ZBool = z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true");

export const ZEnv = z.object({
  NODE_ENV: z.string().default("development"),
  DATABASE_URL: z.string().optional(),
  /** The ORM pool's size; unset: 10 in a process with the web role, 4 otherwise (docs/operations.md "Database connections"). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).optional(),
  /** How long a request waits for a pooled connection (or a new one) before it is a 503 with Retry-After. */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  /** 1: DATABASE_URL is PgBouncer in transaction mode (no named prepared statements, no startup options). */
  DATABASE_PGBOUNCER: ZBool.default(false),
  /** A direct PostgreSQL URL for session-level work (LISTEN, the instance lock, migrations); default DATABASE_URL. */
  DATABASE_DIRECT_URL: z.string().optional(),
  CAPSTAN_DATA_DIR: z.string().default(".data"),
  CAPSTAN_MIGRATE_ON_START: ZBool.default(true),
  CAPSTAN_PUBLIC_URL: z.string().url().default("http://localhost:3000"),
  CAPSTAN_MASTER_KEY: z.string().optional(),
  /** Comma-separated previous master keys that still decrypt during a rotation. */
  CAPSTAN_PREVIOUS_MASTER_KEYS: z.string().default(""),
  CAPSTAN_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  CAPSTAN_WORKERS: ZBool.default(true),
  CAPSTAN_WORKER_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** Seconds before each webhook attempt after the first failure (Svix's schedule by default). */
  CAPSTAN_WEBHOOK_SCHEDULE: z
    .string()
    .default("0,5,300,1800,7200,18000,36000,36000")
    .transform((s) => s.split(",").map((x) => Number(x.trim())))
    .pipe(z.array(z.number().min(0)).min(1)),
  CAPSTAN_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  /** OpenTelemetry: traces go to this OTLP/HTTP endpoint when set (standard variable; off when unset). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default("capstan"),
  /** Bearer token for GET /metrics on the main port; unset: /metrics there is a 404. */
  CAPSTAN_METRICS_TOKEN: z.string().min(16).optional(),
  /** host:port of a separate listener serving /metrics without a token (bind it to a private interface). */
  CAPSTAN_METRICS_LISTEN: z
    .string()
    .regex(/^[^:\s]*:\d{1,5}$/, "host:port")
    .optional(),
  /** Outbox events one dispatcher transaction claims (docs/decisions.md "Workers that keep up"). */
  CAPSTAN_OUTBOX_BATCH: z.coerce.number().int().min(1).max(10_000).default(1000),
  /** While events trickle in, at most one dispatch per this many ms (docs/decisions.md "Workers that keep up"). */
  CAPSTAN_OUTBOX_COALESCE_MS: z.coerce.number().int().min(0).max(5_000).default(20),
  /** Webhook requests in flight per worker process. */
  CAPSTAN_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
  /** Webhook requests in flight per subscription, across every process. */
  CAPSTAN_WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1000).default(32),
  /** Hours a dispatched event (with its finished deliveries and attempts) is kept. */
  CAPSTAN_EVENT_RETENTION_HOURS: z.coerce
    .number()
    .positive()
    .default(7 * 24),
  /** Days a dead letter (and its event) is kept for redelivery. */
  CAPSTAN_DEAD_LETTER_RETENTION_DAYS: z.coerce.number().positive().default(30),
  /** Allow http:// and private/loopback webhook targets (tests, local development). */
  CAPSTAN_WEBHOOK_ALLOW_PRIVATE: ZBool.default(false),
  /** Allow private hosts (and http to loopback) in provider bindings' provider_config (tests, development). */
  CAPSTAN_PROVIDER_ALLOW_PRIVATE: ZBool.default(false),
  /** Source intake (spec 2.4 rejection limits). */
  SOURCE_ALLOW_LOCAL: ZBool.default(false),
  SOURCE_ALLOWED_HOSTS: z
    .string()
    .default("github.com,gitlab.com,bitbucket.org,codeberg.org")
    .transform((s) =>
      s
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  SOURCE_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  SOURCE_MAX_TOTAL_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(100 * 1024 * 1024),
  SOURCE_MAX_FILES: z.coerce.number().int().min(1).default(20_000),
  SOURCE_MAX_DEPTH: z.coerce.number().int().min(1).default(32),
  SOURCE_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(25 * 1024 * 1024),
  SOURCE_MAX_PATH_LENGTH: z.coerce.number().int().min(1).default(512),
  CAPSTAN_MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 1024 * 1024),
  /** Platform blob store on an S3-compatible bucket (replicas); unset bucket: the filesystem under CAPSTAN_DATA_DIR. */
  CAPSTAN_BLOB_S3_BUCKET: z.string().min(3).optional(),
  CAPSTAN_BLOB_S3_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9!_.*'()/-]*$/, "S3 key-safe characters")
    .default(""),
  CAPSTAN_BLOB_S3_ENDPOINT: z.string().url().optional(),
  CAPSTAN_BLOB_S3_REGION: z
    .string()
    .min(1)
    .default(process.env.AWS_REGION ?? "us-east-1"),
  CAPSTAN_BLOB_S3_FORCE_PATH_STYLE: ZBool.default(false),
  /** Shared rate limits across replicas (Redis); unset: per-process token buckets. */
  CAPSTAN_REDIS_URL: z.string().url().optional(),
  CAPSTAN_REDIS_TIMEOUT_MS: z.coerce.number().int().min(5).max(5_000).default(100),
  /** Prefix of every Redis key Capstan writes (several installations, or tests, on one Redis). */
  CAPSTAN_REDIS_KEY_PREFIX: z.string().max(64).default("capstan:"),
  /** Bridge rate limit per service identity and process (token bucket). */
  CAPSTAN_BRIDGE_RATE_PER_SEC: z.coerce.number().positive().default(200),
  CAPSTAN_BRIDGE_BURST: z.coerce.number().int().min(1).default(400),
  /** Bridge records (with their charge and events) commit before the response either way; `batched` (default) group-commits them, `sync` writes one transaction per call. */
  CAPSTAN_BRIDGE_RECORDS: z.enum(["batched", "sync"]).default("batched"),
  /** Priced Bridge calls draw their reservation from a budget lease journaled locally (one commit per call); 0: a per-call reservation commit (docs/decisions.md "One commit per priced call: budget leases"). */
  CAPSTAN_BUDGET_LEASES: ZBool.default(true),
  /** Graceful stop (SIGTERM/SIGINT): how long in-flight requests and worker ticks may take to finish (docs/decisions.md "Durability"). */
  CAPSTAN_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(20_000),
  /** Graceful stop: how long the server keeps accepting (with /readyz 503) before it stops accepting; read by scripts/graceful.mjs. */
  CAPSTAN_SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(0),
  /** Hosted apps (deployments, surfaces). */
  CAPSTAN_RUNNER_DIR: z.string().optional(),
  /** auto: gVisor when runsc works here, else bubblewrap, else none (docs/decisions.md "Enforced isolation"). */
  CAPSTAN_RUNNER_SANDBOX: z.enum(["auto", "gvisor", "bubblewrap", "none"]).default("auto"),
  /** The reserved range of host uids/gids hosted apps run as (one per deployment), when Capstan runs as root. */
  CAPSTAN_RUNNER_UID_BASE: z.coerce
    .number()
    .int()
    .min(1000)
    .max(2 ** 31 - 100_000)
    .default(200_000),
  CAPSTAN_RUNNER_UID_COUNT: z.coerce.number().int().min(1).max(100_000).default(10_000),
  /** Per-plan limits (JSON, merged over the built-in table; docs/decisions.md "Enforced isolation"). */
  CAPSTAN_RUNNER_PLAN_LIMITS: z.string().optional(),
  CAPSTAN_RUNNER_STEP_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(600_000),
  /** Under gVisor an app's health deadline is at least this long (docs/decisions.md "gVisor start on a busy host"). */
  CAPSTAN_RUNNER_GVISOR_HEALTH_MS: z.coerce.number().int().min(1_000).max(600_000).default(60_000),
  CAPSTAN_RUNNER_LOG_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(4_096)
    .default(1024 * 1024),
  /** Days a deployment's run-log segments are kept in the blob store after they were written (docs/decisions.md "Deployment logs"). */
  CAPSTAN_LOG_RETENTION_DAYS: z.coerce.number().positive().default(30),
  /** A running app's log is flushed to the blob store once this much is new, or CAPSTAN_LOG_FLUSH_MS after the last flush. */
  CAPSTAN_LOG_SEGMENT_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .max(8 * 1024 * 1024)
    .default(64 * 1024),
  CAPSTAN_LOG_FLUSH_MS: z.coerce.number().int().min(100).default(30_000),
  CAPSTAN_RUNNER_RECONCILE_MS: z.coerce.number().int().min(100).default(5_000),
  /** Roles of this process (web, worker, runner); unset: all three, or `web` with CAPSTAN_WORKERS=0 (`npm run worker`: worker,runner). */
  CAPSTAN_ROLES: z
    .string()
    .regex(/^\s*(web|worker|runner)(\s*,\s*(web|worker|runner))*\s*$/, "a comma-separated list of web, worker, runner")
    .optional(),
  /** The runner's gateway (surface traffic and runner operations from other replicas): host:port to listen on. */
  CAPSTAN_RUNNER_LISTEN: z
    .string()
    .regex(/^[^\s:]+:\d{1,5}$/, "host:port")
    .default("127.0.0.1:0"),
  /** The URL other replicas reach the gateway at (default: http://<listen address>). */
  CAPSTAN_RUNNER_ENDPOINT: z.string().url().optional(),
  /** Deployments (applying or active) one runner host takes at most. */
  CAPSTAN_RUNNER_CAPACITY: z.coerce.number().int().min(0).default(50),
  CAPSTAN_RUNNER_HEARTBEAT_MS: z.coerce.number().int().min(100).default(5_000),
  /** A runner host whose lease is not renewed within this is lost: its deployments fail (runner_host_lost). */
  CAPSTAN_RUNNER_LEASE_MS: z.coerce.number().int().min(300).default(20_000),
  CAPSTAN_ALLOW_UNENFORCED_PRODUCTION: ZBool.default(false),
  CAPSTAN_SURFACE_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+$/)
    .default("localhost"),
  CAPSTAN_SURFACE_TTL_PREVIEW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(7 * 86_400),
  CAPSTAN_SURFACE_TTL_STAGING_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(30 * 86_400),
  CAPSTAN_SURFACE_TTL_PRODUCTION_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(365 * 86_400),
  CAPSTAN_SURFACE_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(10 * 1024 * 1024),
  CAPSTAN_SURFACE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Custom domains: DNS verification and routing records. */
  CAPSTAN_DNS_SERVERS: z
    .string()
    .regex(/^[0-9a-fA-F.:[\], ]*$/, "comma-separated IP[:port] list")
    .default(""),
  CAPSTAN_DNS_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(3_000),
  CAPSTAN_DOMAIN_CNAME_TARGET: z
    .string()
    .regex(/^[a-z0-9.-]+$/)
    .optional(),
  CAPSTAN_DOMAIN_APEX_ADDRESSES: z
    .string()
    .regex(/^[0-9a-fA-F.:, ]*$/, "comma-separated IP addresses")
    .default(""),
  CAPSTAN_DOMAIN_VERIFY_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(10),
  CAPSTAN_DOMAIN_VERIFY_PER_HOSTNAME_HOUR: z.coerce.number().int().min(1).default(12),
  CAPSTAN_DOMAIN_VERIFY_PER_WORKSPACE_HOUR: z.coerce.number().int().min(1).default(60),
  CAPSTAN_DOMAIN_RECHECK_SECONDS: z.coerce.number().int().min(1).default(3_600),
  /** Extra hostnames that serve the console and API (besides CAPSTAN_PUBLIC_URL's and NEXTAUTH_URL's); any other name gets the domain page. */
  CAPSTAN_CONSOLE_HOSTS: z
    .string()
    .regex(/^[a-z0-9., -]*$/, "comma-separated hostnames")
    .default(""),
  /** Managed resources (docs/decisions.md "Managed resources"). */
  CAPSTAN_MANAGED_POSTGRES_URL: z.string().optional(),
  CAPSTAN_MRES_DELETE_GRACE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(7 * 86_400),
  /** Seconds between two size measurements of a managed resource: how long one may stay over its limit before it turns read-only. */
  CAPSTAN_MRES_MEASURE_SECONDS: z.coerce.number().int().min(1).max(3_600).default(30),
  /** Caps every plan's per-resource size limit (bytes) for a server with less room; unset: the plan's. */
  CAPSTAN_MRES_MAX_SIZE_BYTES: z.coerce.number().int().min(1).optional(),
  /** How often each available postgres resource gets a scheduled backup. */
  CAPSTAN_MRES_BACKUP_INTERVAL_SECONDS: z.coerce.number().int().min(60).default(86_400),
  /** A per-deployment socket's client must finish its handshake (PostgreSQL startup packet, HTTP headers) within this. */
  CAPSTAN_SOCKET_HANDSHAKE_SECONDS: z.coerce.number().int().min(1).max(300).default(10),
  /** A per-deployment socket connection idle (no byte either way) this long is closed on the host side. */
  CAPSTAN_SOCKET_IDLE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
  /** Billing (docs/decisions.md "Billing"): HMAC secret of manual-gateway payment callbacks; unset = the manual gateway is off. */
  CAPSTAN_MANUAL_GATEWAY_SECRET: z.string().min(32).optional(),
  /** Stripe gateway: the API secret key (sk_...); unset = the stripe gateway is off. */
  CAPSTAN_STRIPE_SECRET_KEY: z.string().min(1).optional(),
  /** The webhook endpoint's signing secret (whsec_...) that Stripe-Signature is verified with. */
  CAPSTAN_STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Where the Stripe API is (scheme, host, port); tests point it at a loopback server. */
  CAPSTAN_STRIPE_API_BASE: z.string().url().default("https://api.stripe.com"),
  /** Billing test clocks (docs/decisions.md "Month close and test clocks"): off in production; tests and staging turn it on. */
  CAPSTAN_TEST_CLOCKS: ZBool.default(false),
  /** The issuer prefix of invoice numbers (`CAP-000001`): numbers are gap-free per issuer. */
  /** The name invoices are issued under (the "From" of the PDF and the email). */
  CAPSTAN_INVOICE_ISSUER_NAME: z.string().min(1).max(200).default("Capstan"),
  CAPSTAN_INVOICE_ISSUER: z
    .string()
    .regex(/^[A-Z0-9]{1,12}$/, "1-12 upper-case letters or digits")
    .default("CAP"),
  /** How often the month-close and renewal loops look for due work (a test clock moved forward is billed within this). */
  CAPSTAN_BILLING_CLOSE_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** Dunning (docs/decisions.md "Collection and dunning"): retries of a failed collection, in days after the first failure, by the billing clock. */
  CAPSTAN_DUNNING_RETRY_DAYS: z
    .string()
    .regex(/^\d{1,3}(,\d{1,3}){0,9}$/, "comma-separated whole days, ascending, e.g. 1,3,5,7")
    .default("1,3,5,7")
    .refine(
      (v) =>
        v
          .split(",")
          .map(Number)
          .every((d, i, a) => d > 0 && (i === 0 || d > a[i - 1]!)),
      "retry days must be positive and ascending",
    ),
  /** Sessions and invocations. */
  CAPSTAN_SESSION_RATE_PER_SEC: z.coerce.number().positive().default(20),
  CAPSTAN_SESSION_BURST: z.coerce.number().int().min(1).default(40),
  /** Evaluations: the overall deadline of one run, from the moment it leaves the queue (docs/decisions.md "Evaluations that cannot collide"). */
  CAPSTAN_EVALUATION_DEADLINE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1_800),
  CAPSTAN_INVOCATION_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  CAPSTAN_ACCESS_TTL_SECONDS: z.coerce.number().int().min(60).default(86_400),
  /** Signing-key rotation (docs/decisions.md, "Rotation without downtime"). */
  CAPSTAN_JWKS_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  CAPSTAN_SIGNING_KEY_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  CAPSTAN_JWT_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(3_600).default(60),
  /** The platform's own mail (invitations): smtp://user:pass@host:port or smtps://...; unset = invitations cannot be sent (503). */
  CAPSTAN_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, "smtp:// or smtps:// URL")
    .optional(),
  /** From address of the platform's mail. */
  CAPSTAN_MAIL_FROM: z.string().min(3).default("Capstan <no-reply@localhost>"),
  /** Hours an invitation link stays valid; resending starts a new period. */
  CAPSTAN_INVITATION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 90)
    .default(7 * 24),
  /** Seconds between two sends of one invitation (resend rate limit). */
  CAPSTAN_INVITATION_RESEND_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  BOOTSTRAP_ADMIN_EMAIL: z.string().email().optional(),
  BOOTSTRAP_ADMIN_PASSWORD: z.string().min(8).optional(),
  NEXTAUTH_SECRET: z.string().optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
});

export type TEnv = z.infer<typeof ZEnv>;

let cached: TEnv | undefined;

export function env(): TEnv {
  if (!cached) {
    // CAPSTAN_PUBLIC_URL follows PORT when unset (as `npm start` does: scripts/public-url.mjs); port 0 means "any".
    const port = process.env.PORT;
    const followed =
      !process.env.CAPSTAN_PUBLIC_URL && port && port !== "0" ? { CAPSTAN_PUBLIC_URL: `http://localhost:${port}` } : {};
    const parsed = ZEnv.safeParse({ ...process.env, ...followed });
    if (!parsed.success) {
      const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
      throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
    }
    cached = parsed.data;
  }
  return cached;
}

/** Tests change the environment between cases; they call this afterwards. */
export function resetEnvCache(): void {
  cached = undefined;
}
