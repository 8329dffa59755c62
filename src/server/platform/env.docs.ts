import type { TEnv } from "./env";
/**
 * The configuration reference: one entry per environment variable Capstan
 * reads, with the default as a reader should see it and what it means.
 * `docs/configuration.md` is generated from this (`npm run docs:config`) and a
 * unit test fails when it is stale; the type makes an undocumented variable
 * of the env schema a compile error.
 *
 * A new variable: add it to ZEnv (env.ts), add its entry below, then run
 * `npm run docs:config` and commit docs/configuration.md with it.
 */
export const ENV_GROUPS = [
  "Server, database and roles",
  "Keys and tokens",
  "Events and webhooks",
  "Metrics and tracing",
  "Mail and invitations",
  "Source intake",
  "The Bridge",
  "Blob store and Redis",
  "Runner hosts and hosted apps",
  "Surfaces, sessions and invocations",
  "Custom domains",
  "Managed resources",
  "Billing",
  "The capstan CLI",
] as const;

/** Read outside the env schema: by scripts (start, worker), next-auth, the Bridge fast path, OIDC discovery and the `capstan` CLI. */
export const OUTSIDE_SCHEMA = [
  "PORT",
  "HOST",
  "NEXTAUTH_URL",
  "CAPSTAN_BRIDGE_NODE",
  "OIDC_ALLOW_INSECURE_ISSUER",
  "CAPSTAN_DIST_DIR",
  "CAPSTAN_URL",
  "CAPSTAN_TOKEN",
  "CAPSTAN_WORKSPACE",
  "CAPSTAN_CONFIG",
] as const;

export type TEnvDoc = { group: (typeof ENV_GROUPS)[number]; default: string; doc: string };

export const ENV_DOCS: Record<keyof TEnv | (typeof OUTSIDE_SCHEMA)[number], TEnvDoc> = {
  // Server, database and roles
  NODE_ENV: {
    group: "Server, database and roles",
    default: "`development`",
    doc: "`production` under `npm start` and in the production artifact (scripts set it); `development` under `next dev`. Tests set `test`.",
  },
  DATABASE_URL: {
    group: "Server, database and roles",
    default: "unset",
    doc: "PostgreSQL URL. Unset: embedded PGlite in `$CAPSTAN_DATA_DIR/pglite` (one process at a time).",
  },
  DATABASE_POOL_SIZE: {
    group: "Server, database and roles",
    default: "`10` with the web role, `4` without",
    doc: 'Connections of the process\'s ORM pool (plus a hot pool of a quarter of it, at least 2, one `LISTEN` and one instance-lock connection); see "Database connections" for the `max_connections` formula.',
  },
  DATABASE_CONNECT_TIMEOUT_MS: {
    group: "Server, database and roles",
    default: "`5000`",
    doc: "How long a request waits for a database connection before it is answered `503` with `Retry-After`.",
  },
  DATABASE_PGBOUNCER: {
    group: "Server, database and roles",
    default: "`0`",
    doc: "`1`: `DATABASE_URL` is PgBouncer in transaction mode (no named prepared statements, no startup options).",
  },
  DATABASE_DIRECT_URL: {
    group: "Server, database and roles",
    default: "`DATABASE_URL`",
    doc: "PostgreSQL itself, for the session-level connections (`LISTEN`, the instance lock, migrations) when `DATABASE_URL` is a pooler.",
  },
  CAPSTAN_DATA_DIR: {
    group: "Server, database and roles",
    default: "`.data`",
    doc: "Embedded database, generated keys, blobs, operator socket.",
  },
  CAPSTAN_MIGRATE_ON_START: {
    group: "Server, database and roles",
    default: "`1`",
    doc: "Apply pending migrations when a process opens the database. Set `0` on replicas and run `capstan migrate` once per release (it migrates regardless of this setting).",
  },
  CAPSTAN_PUBLIC_URL: {
    group: "Server, database and roles",
    default: "`http://localhost:$PORT` (`http://localhost:3000`)",
    doc: "External base URL; the JWT issuer (`iss`), discovery URLs, links and surface URLs. Unset, it follows the port (`PORT`, or `npm start -- -p N`); `npm start` warns once when a localhost URL names another port than the one it listens on.",
  },
  CAPSTAN_MAX_BODY_BYTES: {
    group: "Server, database and roles",
    default: "`1048576`",
    doc: "Largest accepted request body; larger is a 413 problem.",
  },
  CAPSTAN_WORKERS: {
    group: "Server, database and roles",
    default: "`1`",
    doc: "Run background workers inside the server process (`0`: run `npm run worker` separately).",
  },
  CAPSTAN_WORKER_POLL_MS: {
    group: "Server, database and roles",
    default: "`1000`",
    doc: "How often the workers look for work. The outbox dispatcher and the webhook sender are woken at once by LISTEN/NOTIFY; for them this is only the fallback for a lost notification.",
  },
  CAPSTAN_MAX_UPLOAD_BYTES: { group: "Server, database and roles", default: "`10485760`", doc: "Largest upload body." },
  CAPSTAN_SHUTDOWN_GRACE_MS: {
    group: "Server, database and roles",
    default: "`20000`",
    doc: "Graceful stop (SIGTERM/SIGINT of `npm start` and `npm run worker`): how long in-flight requests and running worker ticks may take to finish. The process exits 0 at most `CAPSTAN_SHUTDOWN_DELAY_MS` + this + 5 s after the signal.",
  },
  CAPSTAN_SHUTDOWN_DELAY_MS: {
    group: "Server, database and roles",
    default: "`0`",
    doc: "Graceful stop: keep accepting this long after the signal with `/readyz` already 503, so a load balancer takes the process out of rotation before it stops accepting.",
  },
  CAPSTAN_ROLES: {
    group: "Server, database and roles",
    default: "all (`web` with `CAPSTAN_WORKERS=0`; `worker,runner` for `npm run worker`)",
    doc: "Comma-separated roles of this process: `web` (console, `/v1`, Bridge, surfaces), `worker` (background loops), `runner` (starts hosted apps on this host; one per host). See [Running more than one replica](operations.md#running-more-than-one-replica).",
  },
  BOOTSTRAP_ADMIN_EMAIL: {
    group: "Server, database and roles",
    default: "`admin@example.com`",
    doc: "Platform owner created on first start.",
  },
  BOOTSTRAP_ADMIN_PASSWORD: {
    group: "Server, database and roles",
    default: "generated, printed once",
    doc: "Their password.",
  },
  NEXTAUTH_SECRET: {
    group: "Server, database and roles",
    default: "generated into `$CAPSTAN_DATA_DIR/nextauth.secret`",
    doc: "Console session signing secret.",
  },
  LOG_LEVEL: {
    group: "Server, database and roles",
    default: "`info`",
    doc: "`debug`, `info`, `warn`, `error`, `silent`. JSON lines (pino; debug/info on stdout, warn/error on stderr); secret-bearing fields are redacted by path and by name.",
  },
  PORT: {
    group: "Server, database and roles",
    default: "`3000`",
    doc: "Listen port of `npm start` (`npm start -- -p 3700` sets it); the start banner prints the URL to open.",
  },
  HOST: {
    group: "Server, database and roles",
    default: "`0.0.0.0`",
    doc: "Listen address of `npm start` (`npm start -- -H 127.0.0.1`).",
  },
  NEXTAUTH_URL: {
    group: "Server, database and roles",
    default: "`$CAPSTAN_PUBLIC_URL`",
    doc: "Console base URL for next-auth; unset, it follows `CAPSTAN_PUBLIC_URL` (`npm start` warns once when both are set to different origins).",
  },
  CAPSTAN_DIST_DIR: {
    group: "Server, database and roles",
    default: "`dist`",
    doc: "Where `npm run build` writes the plain-JavaScript worker and CLI bundles (`worker.mjs`, `cli.mjs`) that `npm run worker` and `npx capstan` run.",
  },
  // Keys and tokens
  CAPSTAN_MASTER_KEY: {
    group: "Keys and tokens",
    default: "generated into `$CAPSTAN_DATA_DIR/master.key` with a warning",
    doc: "32-byte key (base64 or hex) that seals secrets at rest (AES-256-GCM). Set it in production.",
  },
  CAPSTAN_PREVIOUS_MASTER_KEYS: {
    group: "Keys and tokens",
    default: "empty",
    doc: "Comma-separated old master keys that still decrypt during a rotation.",
  },
  CAPSTAN_JWKS_MAX_AGE_SECONDS: {
    group: "Keys and tokens",
    default: "`300`",
    doc: "`Cache-Control: max-age` of `/.well-known/jwks.json`; a new signing key waits this long (plus the two below) before it signs.",
  },
  CAPSTAN_SIGNING_KEY_CACHE_MS: {
    group: "Keys and tokens",
    default: "`5000`",
    doc: "How long each process caches the signing keys (an emergency rotation reaches every process within it).",
  },
  CAPSTAN_JWT_CLOCK_SKEW_SECONDS: {
    group: "Keys and tokens",
    default: "`60`",
    doc: "Clock skew allowed between machines: in the key rotation schedule, and when verifying tokens (`exp` may be this far past, `iat`/`nbf` this far ahead). Every token must carry `exp` and `iat` and live at most 365 days (control), 1 hour (bridge) or 2 hours (runner).",
  },
  OIDC_ALLOW_INSECURE_ISSUER: {
    group: "Keys and tokens",
    default: "`0`",
    doc: "Allow http loopback issuers for service-identity federation (tests only); also disables the connect-time egress guard for OIDC discovery.",
  },
  // Events and webhooks
  CAPSTAN_WEBHOOK_SCHEDULE: {
    group: "Events and webhooks",
    default: "`0,5,300,1800,7200,18000,36000,36000`",
    doc: "Seconds before each webhook attempt (Svix's schedule); jittered +-20 %.",
  },
  CAPSTAN_WEBHOOK_TIMEOUT_MS: { group: "Events and webhooks", default: "`15000`", doc: "Webhook request timeout." },
  CAPSTAN_OUTBOX_BATCH: {
    group: "Events and webhooks",
    default: "`1000`",
    doc: "Outbox events one dispatcher transaction claims.",
  },
  CAPSTAN_OUTBOX_COALESCE_MS: {
    group: "Events and webhooks",
    default: "`20`",
    doc: "While events trickle in, the dispatcher runs at most once per this many ms (one transaction per window, not one per Bridge commit); 0 dispatches on every commit. A backlog is drained batch after batch regardless.",
  },
  CAPSTAN_WEBHOOK_CONCURRENCY: {
    group: "Events and webhooks",
    default: "`64`",
    doc: "Webhook requests in flight per worker process.",
  },
  CAPSTAN_WEBHOOK_MAX_IN_FLIGHT: {
    group: "Events and webhooks",
    default: "`32`",
    doc: "Webhook requests in flight per subscription, across every process (events of one subject still go one at a time, in order).",
  },
  CAPSTAN_EVENT_RETENTION_HOURS: {
    group: "Events and webhooks",
    default: "`168`",
    doc: "Dispatched events, with their finished deliveries and attempts, are purged after this (7 days).",
  },
  CAPSTAN_DEAD_LETTER_RETENTION_DAYS: {
    group: "Events and webhooks",
    default: "`30`",
    doc: "Dead letters (and their events) stay redeliverable this long, then are purged. Audit records are never purged.",
  },
  CAPSTAN_WEBHOOK_ALLOW_PRIVATE: {
    group: "Events and webhooks",
    default: "`0`",
    doc: "Allow http:// and private/loopback webhook URLs (development, tests); also disables the connect-time egress guard for webhook deliveries.",
  },
  // Metrics and tracing
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    group: "Metrics and tracing",
    default: "unset",
    doc: "Turns OpenTelemetry tracing on: spans (Next.js request spans included) go to `<endpoint>/v1/traces` over OTLP/HTTP. Off when unset. The SDK's other standard `OTEL_*` variables apply.",
  },
  OTEL_SERVICE_NAME: { group: "Metrics and tracing", default: "`capstan`", doc: "Service name on the spans." },
  CAPSTAN_METRICS_TOKEN: {
    group: "Metrics and tracing",
    default: "unset",
    doc: "Bearer token for `GET /metrics` (Prometheus) on the main port, at least 16 characters. Unset: `/metrics` there answers 404.",
  },
  CAPSTAN_METRICS_LISTEN: {
    group: "Metrics and tracing",
    default: "unset",
    doc: "`host:port` of a separate listener serving `GET /metrics` without a token, and `/healthz` and `/readyz` (the probes of a worker process; bind it to a private interface; the server and the worker each open it).",
  },
  // Mail and invitations
  CAPSTAN_SMTP_URL: {
    group: "Mail and invitations",
    default: "unset",
    doc: "The platform's own mail (invitations): `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://user:pass@host:465`. Unset: inviting by email answers 503 `mail_not_configured` (adding an existing account still works).",
  },
  CAPSTAN_MAIL_FROM: {
    group: "Mail and invitations",
    default: "`Capstan <no-reply@localhost>`",
    doc: "From address of the platform's mail.",
  },
  CAPSTAN_INVITATION_TTL_HOURS: {
    group: "Mail and invitations",
    default: "`168`",
    doc: "How long an invitation link works (7 days); a resend starts a new period.",
  },
  CAPSTAN_INVITATION_RESEND_SECONDS: {
    group: "Mail and invitations",
    default: "`60`",
    doc: "Minimum time between two emails of one invitation (429 with `Retry-After` before that).",
  },
  // Source intake
  SOURCE_ALLOW_LOCAL: {
    group: "Source intake",
    default: "`0`",
    doc: "Allow `file://` and loopback repository URLs (development, tests). Off, such a URL is refused at once (422 naming this setting; nothing is created); `capstan deploy <dir>` uploads the tree instead and needs no setting.",
  },
  SOURCE_ALLOWED_HOSTS: {
    group: "Source intake",
    default: "`github.com,gitlab.com,bitbucket.org,codeberg.org`",
    doc: "Hosts a repository may be fetched from (https only).",
  },
  SOURCE_FETCH_TIMEOUT_MS: { group: "Source intake", default: "`60000`", doc: "Fetch timeout (`fetch_timeout`)." },
  SOURCE_MAX_TOTAL_BYTES: {
    group: "Source intake",
    default: "`104857600`",
    doc: "Largest source tree (`size_limit`).",
  },
  SOURCE_MAX_FILES: {
    group: "Source intake",
    default: "`20000`",
    doc: "Most files and symlinks (`file_count_limit`).",
  },
  SOURCE_MAX_DEPTH: { group: "Source intake", default: "`32`", doc: "Deepest path, in segments (`depth_limit`)." },
  SOURCE_MAX_FILE_BYTES: {
    group: "Source intake",
    default: "`26214400`",
    doc: "Largest single file (`file_size_limit`).",
  },
  SOURCE_MAX_PATH_LENGTH: {
    group: "Source intake",
    default: "`512`",
    doc: "Longest relative path in bytes (`path_length`).",
  },
  // The Bridge
  CAPSTAN_PROVIDER_ALLOW_PRIVATE: {
    group: "The Bridge",
    default: "`0`",
    doc: "Allow private hosts and http to loopback in provider bindings (development, tests); also disables the connect-time egress guard for provider calls.",
  },
  CAPSTAN_BRIDGE_RATE_PER_SEC: {
    group: "The Bridge",
    default: "`200`",
    doc: "Bridge token bucket refill per service identity and process (429 + `Retry-After` beyond it); with `CAPSTAN_REDIS_URL`, one limit of this many calls per 1-second window shared by every replica.",
  },
  CAPSTAN_BRIDGE_BURST: {
    group: "The Bridge",
    default: "`400`",
    doc: "Bridge token bucket size per service identity and process (not used with `CAPSTAN_REDIS_URL`).",
  },
  CAPSTAN_BRIDGE_RECORDS: {
    group: "The Bridge",
    default: "`batched`",
    doc: "Either way a Bridge call's record, its charge (budget settlement) and its two events commit in one transaction before its response leaves. `batched`: group commit (calls that finish while a write is in flight go together in the next one, up to 100; everyone waiting on a write is answered once it committed); `sync`: one transaction per call.",
  },
  CAPSTAN_BUDGET_LEASES: {
    group: "The Bridge",
    default: "`1`",
    doc: "Priced Bridge calls draw their budget reservation from a lease this process holds (16 calls' worth, reserved under the same limits) and journal the draw in a local write-ahead journal under `CAPSTAN_DATA_DIR/journal` (one append; synced to disk once the call has been in flight 10 ms) instead of committing a reservation row: one database commit per call. `0`: a reservation commit per call, as before. `reserved_units` of a budget includes an idle lease's unused part until it goes back (1 s after its last call). The journal directory must be on durable storage; see docs/decisions.md \"One commit per priced call\".",
  },
  CAPSTAN_BRIDGE_NODE: {
    group: "The Bridge",
    default: "`1`",
    doc: "`npm start` hands `POST /v1/capabilities/…` to the Bridge handler on Node's own request objects before Next.js routing; `0` sends them through Next.js's route (same handler, slower; for comparison).",
  },
  // Blob store and Redis
  CAPSTAN_BLOB_S3_BUCKET: {
    group: "Blob store and Redis",
    default: "unset",
    doc: "Keep the platform blob store (snapshots, uploads, evidence, build logs, invocation bodies, platform `storage.object`) in this S3-compatible bucket instead of `$CAPSTAN_DATA_DIR/blobs`. Needed for more than one replica. Credentials come from the AWS SDK's standard chain (`AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`, `AWS_PROFILE`, web identity, instance roles).",
  },
  CAPSTAN_BLOB_S3_PREFIX: {
    group: "Blob store and Redis",
    default: "empty",
    doc: "Key prefix inside the bucket (objects are `<prefix>/sha256/ab/cd/<sha256>`).",
  },
  CAPSTAN_BLOB_S3_ENDPOINT: {
    group: "Blob store and Redis",
    default: "AWS",
    doc: "Endpoint URL of an S3-compatible service (MinIO, R2, Ceph...).",
  },
  CAPSTAN_BLOB_S3_REGION: {
    group: "Blob store and Redis",
    default: "`$AWS_REGION` or `us-east-1`",
    doc: "Signing region.",
  },
  CAPSTAN_BLOB_S3_FORCE_PATH_STYLE: {
    group: "Blob store and Redis",
    default: "`0`",
    doc: "`1`: path-style URLs (`<endpoint>/<bucket>/<key>`), as most self-hosted services want.",
  },
  CAPSTAN_REDIS_URL: {
    group: "Blob store and Redis",
    default: "unset",
    doc: "Share the Bridge and per-session rate limits between replicas through this Redis (`redis://[user:pass@]host:port[/db]`). Unset: per-process limits.",
  },
  CAPSTAN_REDIS_TIMEOUT_MS: {
    group: "Blob store and Redis",
    default: "`100`",
    doc: "Per-command Redis timeout; a slower, failing or unreachable Redis makes the check fall back to per-process limits (never a hang).",
  },
  CAPSTAN_REDIS_KEY_PREFIX: {
    group: "Blob store and Redis",
    default: "`capstan:`",
    doc: "Prefix of every Redis key (rate-limit windows are `<prefix>rl:<limit>:<key>`); give each installation sharing a Redis its own.",
  },
  // Runner hosts and hosted apps
  CAPSTAN_RUNNER_DIR: {
    group: "Runner hosts and hosted apps",
    default: "`$CAPSTAN_DATA_DIR/run`",
    doc: "Where the local runner unpacks, builds and runs deployments (one directory each). Keep it short: Unix socket paths inside it must stay under 100 characters.",
  },
  CAPSTAN_RUNNER_SANDBOX: {
    group: "Runner hosts and hosted apps",
    default: "`auto`",
    doc: "`auto`: run apps in gVisor (`runsc`) when it works on the host, else bubblewrap, else plain processes (every deployment says which); `gvisor` or `bubblewrap`: refuse to start without it; `none`: never sandbox. Install and build run under bubblewrap whenever it works.",
  },
  CAPSTAN_RUNNER_UID_BASE: {
    group: "Runner hosts and hosted apps",
    default: "`200000`",
    doc: "First host uid/gid of the range reserved for hosted apps (one per deployment) when Capstan runs as root.",
  },
  CAPSTAN_RUNNER_UID_COUNT: {
    group: "Runner hosts and hosted apps",
    default: "`10000`",
    doc: "Size of that range (deployments that can exist at once on one runner host).",
  },
  CAPSTAN_RUNNER_PLAN_LIMITS: {
    group: "Runner hosts and hosted apps",
    default: "(built-in table)",
    doc: 'JSON merged over the per-plan limits, e.g. `{"free": {"memory_mb": 256}}` (fields `memory_mb`, `processes`, `cpu_weight`, `disk_mb`).',
  },
  CAPSTAN_RUNNER_STEP_TIMEOUT_MS: {
    group: "Runner hosts and hosted apps",
    default: "`600000`",
    doc: "Deadline of each install and build step.",
  },
  CAPSTAN_RUNNER_GVISOR_HEALTH_MS: {
    group: "Runner hosts and hosted apps",
    default: "`60000`",
    doc: "Under gVisor, the least time an app gets to begin answering its health check after its sandbox is up (every system call goes through gVisor's user-space kernel, and a start through npm on a busy host takes tens of seconds); from its first answer of any status, the descriptor's own `health.timeout_ms` applies, so a sick app still fails early.",
  },
  CAPSTAN_RUNNER_LOG_MAX_BYTES: {
    group: "Runner hosts and hosted apps",
    default: "`1048576`",
    doc: "Size at which a running app's log rotates on its runner host (the log and one previous generation are kept there; everything is copied to the blob store in segments meanwhile).",
  },
  CAPSTAN_LOG_RETENTION_DAYS: {
    group: "Runner hosts and hosted apps",
    default: "`30`",
    doc: "Days a deployment's run-log segments stay in the blob store after they were written; then the segment and its blob are deleted (the logs say how many bytes are no longer kept). Build logs are evidence and are kept.",
  },
  CAPSTAN_LOG_SEGMENT_BYTES: {
    group: "Runner hosts and hosted apps",
    default: "`65536`",
    doc: "A running app's log is copied to the blob store as a new segment once this much is new (and at once when the runner's log rotated, and when the app stops).",
  },
  CAPSTAN_LOG_FLUSH_MS: {
    group: "Runner hosts and hosted apps",
    default: "`30000`",
    doc: "Also copied once this long has passed since the last segment, however little is new.",
  },
  CAPSTAN_RUNNER_RECONCILE_MS: {
    group: "Runner hosts and hosted apps",
    default: "`5000`",
    doc: "How often the reconciler compares the database with what runs.",
  },
  CAPSTAN_RUNNER_LISTEN: {
    group: "Runner hosts and hosted apps",
    default: "`127.0.0.1:0`",
    doc: "Where the runner gateway listens (`host:port`; port 0 picks one). Other replicas reach this host's apps and runner operations through it, with a key derived from the master key.",
  },
  CAPSTAN_RUNNER_ENDPOINT: {
    group: "Runner hosts and hosted apps",
    default: "`http://<listen address>`",
    doc: "The URL other replicas use for the gateway (set it when listening on `0.0.0.0` or behind NAT), recorded in `runner_hosts.endpoint`.",
  },
  CAPSTAN_RUNNER_CAPACITY: {
    group: "Runner hosts and hosted apps",
    default: "`50`",
    doc: "Deployments (applying or active) this runner host takes at most.",
  },
  CAPSTAN_RUNNER_HEARTBEAT_MS: {
    group: "Runner hosts and hosted apps",
    default: "`5000`",
    doc: "How often a runner host renews its lease (and how often workers look for lapsed ones).",
  },
  CAPSTAN_RUNNER_LEASE_MS: {
    group: "Runner hosts and hosted apps",
    default: "`20000`",
    doc: "A runner host that has not renewed for this long is lost: its deployments become `failed` (`runner_host_lost`) within lease + heartbeat period, and new ones are placed elsewhere.",
  },
  CAPSTAN_ALLOW_UNENFORCED_PRODUCTION: {
    group: "Runner hosts and hosted apps",
    default: "`0`",
    doc: "Operator override: let production deployments run on a runner that cannot enforce `isolated-vm` (the local runner). Off: they are `blocked` with `isolation_unenforced`.",
  },
  CAPSTAN_EVALUATION_DEADLINE_SECONDS: {
    group: "Runner hosts and hosted apps",
    default: "`1800`",
    doc: "Overall deadline of one evaluation, from the moment it leaves the queue (evaluations of one revision run one after another). A run still unfinished then ends `failed` with an `evaluation_deadline` finding naming the check it hung in.",
  },
  // Surfaces, sessions and invocations
  CAPSTAN_SURFACE_DOMAIN: {
    group: "Surfaces, sessions and invocations",
    default: "`localhost`",
    doc: "Host routes of surfaces are `srf-<id>.<domain>` (`http://srf-….localhost:3000/` works in a browser with no DNS).",
  },
  CAPSTAN_SURFACE_TTL_PREVIEW_SECONDS: {
    group: "Surfaces, sessions and invocations",
    default: "`604800`",
    doc: "Surface lifetime of preview deployments (7 days); at expiry the deployment stops.",
  },
  CAPSTAN_SURFACE_TTL_STAGING_SECONDS: {
    group: "Surfaces, sessions and invocations",
    default: "`2592000`",
    doc: "Surface lifetime of staging deployments (30 days); at expiry the deployment stops.",
  },
  CAPSTAN_SURFACE_TTL_PRODUCTION_SECONDS: {
    group: "Surfaces, sessions and invocations",
    default: "`31536000`",
    doc: "Surface lifetime of production deployments (365 days); at expiry the deployment stops.",
  },
  CAPSTAN_SURFACE_MAX_BODY_BYTES: {
    group: "Surfaces, sessions and invocations",
    default: "`10485760`",
    doc: "Largest request body forwarded to an app (413 beyond).",
  },
  CAPSTAN_SURFACE_TIMEOUT_MS: {
    group: "Surfaces, sessions and invocations",
    default: "`30000`",
    doc: "How long the surface proxy waits for an app's headers and between body chunks (504 beyond).",
  },
  CAPSTAN_SESSION_RATE_PER_SEC: {
    group: "Surfaces, sessions and invocations",
    default: "`20`",
    doc: "Invocations per second per session (token bucket per process, or shared through `CAPSTAN_REDIS_URL`); beyond it admission says `rate_limited`.",
  },
  CAPSTAN_SESSION_BURST: {
    group: "Surfaces, sessions and invocations",
    default: "`40`",
    doc: "Token bucket size of the per-session limit.",
  },
  CAPSTAN_INVOCATION_TIMEOUT_MS: {
    group: "Surfaces, sessions and invocations",
    default: "`30000`",
    doc: "Deadline of a managed execution (`timed_out` beyond); also what the runtime budget reserves per invocation.",
  },
  CAPSTAN_ACCESS_TTL_SECONDS: {
    group: "Surfaces, sessions and invocations",
    default: "`86400`",
    doc: "How long a qualified access to a surface lasts (at most until the surface expires).",
  },
  // Custom domains
  CAPSTAN_DNS_SERVERS: {
    group: "Custom domains",
    default: "system resolvers",
    doc: "Comma-separated `IP[:port]` the domain checks ask (a resolver you trust; tests use a loopback DNS server).",
  },
  CAPSTAN_DNS_TIMEOUT_MS: { group: "Custom domains", default: "`3000`", doc: "Per-query DNS timeout (two tries)." },
  CAPSTAN_DOMAIN_CNAME_TARGET: {
    group: "Custom domains",
    default: "`domains.<CAPSTAN_SURFACE_DOMAIN>`",
    doc: "What a custom subdomain's CNAME must point at (your TLS terminator / load balancer name).",
  },
  CAPSTAN_DOMAIN_APEX_ADDRESSES: {
    group: "Custom domains",
    default: "empty",
    doc: "Comma-separated IPs an apex domain's A/AAAA records must use. Empty: apexes are told to use ALIAS / CNAME flattening to the CNAME target.",
  },
  CAPSTAN_DOMAIN_VERIFY_INTERVAL_SECONDS: {
    group: "Custom domains",
    default: "`10`",
    doc: "Least time between two verify requests for one hostname (429 + `Retry-After` sooner).",
  },
  CAPSTAN_DOMAIN_VERIFY_PER_HOSTNAME_HOUR: {
    group: "Custom domains",
    default: "`12`",
    doc: "Verify requests per hostname in any hour (429 + `Retry-After` beyond).",
  },
  CAPSTAN_DOMAIN_VERIFY_PER_WORKSPACE_HOUR: {
    group: "Custom domains",
    default: "`60`",
    doc: "Verify requests per workspace in any hour (429 + `Retry-After` beyond).",
  },
  CAPSTAN_DOMAIN_RECHECK_SECONDS: {
    group: "Custom domains",
    default: "`3600`",
    doc: "How often a verified domain's records are checked again.",
  },
  CAPSTAN_CONSOLE_HOSTS: {
    group: "Custom domains",
    default: "empty",
    doc: "Extra hostnames (comma-separated) that serve the console and API besides `CAPSTAN_PUBLIC_URL`'s and `NEXTAUTH_URL`'s; any other name that reaches Capstan is treated as a custom domain (routed when verified, otherwise a page saying it is unknown or not verified).",
  },
  // Managed resources
  CAPSTAN_MANAGED_POSTGRES_URL: {
    group: "Managed resources",
    default: "`$DATABASE_URL`",
    doc: "The PostgreSQL server that holds managed `postgres` resources: an admin connection that may CREATE ROLE and CREATE DATABASE. Unset with embedded PGlite: the `postgres` kind is refused (`422` `managed_postgres_unavailable`).",
  },
  CAPSTAN_MRES_DELETE_GRACE_SECONDS: {
    group: "Managed resources",
    default: "`604800` (7 days)",
    doc: "How long a deleted managed resource waits, restorable by reattaching it, before the worker destroys its data.",
  },
  CAPSTAN_MRES_MEASURE_SECONDS: {
    group: "Managed resources",
    default: "`30`",
    doc: "How often each managed resource's size is measured (and metered into the `storage` budget); a resource over its limit turns read-only within 1.5 intervals. 1..3600.",
  },
  CAPSTAN_MRES_MAX_SIZE_BYTES: {
    group: "Managed resources",
    default: "unset",
    doc: "Caps every plan's per-resource size limit (bytes), for a managed server with less room than the plans promise.",
  },
  CAPSTAN_MRES_BACKUP_INTERVAL_SECONDS: {
    group: "Managed resources",
    default: "`86400` (daily)",
    doc: "How often each available postgres resource gets a scheduled backup (kept 7/14/30 days on free/team/enterprise).",
  },
  CAPSTAN_SOCKET_HANDSHAKE_SECONDS: {
    group: "Managed resources",
    default: "`10`",
    doc: "A client of a deployment's Bridge, PostgreSQL or bucket socket must send its PostgreSQL startup packet or HTTP headers within this, or the host closes the connection.",
  },
  CAPSTAN_SOCKET_IDLE_SECONDS: {
    group: "Managed resources",
    default: "`600`",
    doc: "A connection on a deployment's socket with no byte either way for this long is closed by the host (an app's pool reconnects).",
  },
  // Billing
  CAPSTAN_MANUAL_GATEWAY_SECRET: {
    group: "Billing",
    default: "unset (manual gateway off)",
    doc: "HMAC-SHA256 secret (at least 32 chars) an operator signs manual-gateway payment callbacks with (`Capstan-Signature: t=<unix s>,v1=<hex>` over `t.body`, 300 s tolerance); unset, `POST /v1/payments/callbacks/manual` is 404.",
  },
  CAPSTAN_STRIPE_SECRET_KEY: {
    group: "Billing",
    default: "unset (stripe gateway off)",
    doc: "Stripe API secret key (`sk_…`). Set, checkout defaults to the `stripe` gateway: a Checkout Session is created per order and its url returned as `payment_url`; refunds of Stripe orders go through Stripe. Unset, `POST /v1/payments/callbacks/stripe` is 404.",
  },
  CAPSTAN_STRIPE_WEBHOOK_SECRET: {
    group: "Billing",
    default: "unset",
    doc: "The Stripe webhook endpoint's signing secret (`whsec_…`); `Stripe-Signature` of `POST /v1/payments/callbacks/stripe` is verified with it (`stripe.webhooks.constructEvent`, 300 s tolerance). Subscribe the endpoint to `checkout.session.completed`, `.async_payment_succeeded`, `.async_payment_failed`, `.expired`.",
  },
  CAPSTAN_STRIPE_API_BASE: {
    group: "Billing",
    default: "`https://api.stripe.com`",
    doc: "Where the Stripe API is (scheme, host, port: passed to the SDK as `protocol`/`host`/`port`); tests point it at a loopback Stripe-compatible server.",
  },
  CAPSTAN_TEST_CLOCKS: {
    group: "Billing",
    default: "`false`",
    doc: "Billing test clocks (`POST /v1/platform/billing/test-clocks`, `…/{clk}:advance`): a workspace attached to one bills at the clock's time (like Stripe's test clocks). Off: those endpoints are 404. Turn on for tests and staging only.",
  },
  CAPSTAN_INVOICE_ISSUER_NAME: {
    group: "Billing",
    default: "`Capstan`",
    doc: 'The name invoices are issued under (the PDF\'s "From", the invoice email).',
  },
  CAPSTAN_INVOICE_ISSUER: {
    group: "Billing",
    default: "`CAP`",
    doc: "Prefix of invoice numbers (`CAP-000001`), gap-free per issuer (1-12 upper-case letters or digits).",
  },
  CAPSTAN_BILLING_CLOSE_POLL_MS: {
    group: "Billing",
    default: "`60000`",
    doc: "How often the month-close, renewal and collection loops look for due work (closes every month since each workspace's last close; automatic invoice charges, dunning steps, automatic top-ups).",
  },
  CAPSTAN_DUNNING_RETRY_DAYS: {
    group: "Billing",
    default: "`1,3,5,7`",
    doc: "The dunning schedule: days after an invoice's first failed collection (or its due date with no saved card) on which collection is retried, each with an email; after the last, the tier's dunning policy (keep serving, restrict, suspend) applies.",
  },
  // The capstan CLI
  CAPSTAN_URL: {
    group: "The capstan CLI",
    default: "the saved profile's, else `http://localhost:3000`",
    doc: "The Capstan server the `capstan` CLI talks to (overrides the profile `capstan login` saved).",
  },
  CAPSTAN_TOKEN: {
    group: "The capstan CLI",
    default: "the saved profile's",
    doc: "The API token the CLI sends (overrides the profile); `capstan login --token` checks it against the server before saving it.",
  },
  CAPSTAN_WORKSPACE: {
    group: "The capstan CLI",
    default: "the saved profile's",
    doc: "The workspace the CLI works in (overrides the profile; `--workspace` overrides both).",
  },
  CAPSTAN_CONFIG: {
    group: "The capstan CLI",
    default: "`$XDG_CONFIG_HOME/capstan/profile.json`, else `~/.config/capstan/profile.json`",
    doc: "Where the CLI keeps its profile (url, token, workspace; written with mode 0600).",
  },
};
