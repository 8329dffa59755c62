/**
 * Is this error the database refusing or failing to give us a connection
 * (server at max_connections, PgBouncer at max_client_conn or its wait
 * timeout, our pool exhausted past DATABASE_CONNECT_TIMEOUT_MS, the server
 * restarting or unreachable)? Then the request is answered 503 with
 * Retry-After (errors.ts toAppError), never 500: nothing was done, the client
 * may retry. Looks through the wrappers the ORM and its driver adapter put
 * around the driver's error (`cause`, `meta.driverAdapterError`), a few levels
 * deep. Bare socket codes (ECONNRESET...) are not enough on their own: an
 * upstream HTTP failure carries them too.
 */
const PG_CODES = new Set([
  "53300", // too_many_connections
  "53400", // configuration_limit_exceeded
  "57P01",
  "57P02",
  "57P03", // admin/crash shutdown, cannot_connect_now (starting up)
  "08000",
  "08001",
  "08003",
  "08004",
  "08006", // connection exceptions
  "08P01", // PgBouncer's "no more connections allowed (max_client_conn)"
]);
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2037"]);
const ADAPTER_KINDS = new Set(["TooManyConnections", "DatabaseNotReachable", "ConnectionClosed", "SocketTimeout"]);
const MESSAGES =
  /too many clients|remaining connection slots are reserved|timeout exceeded when trying to connect|Connection terminated|no more connections allowed|query_wait_timeout|pgbouncer cannot connect|server conn crashed|the database system is (starting up|shutting down|in recovery mode)|Can't reach database server|Timed out fetching a new connection/i;

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== "object" || depth > 5) return false;
  const e = err as {
    code?: unknown;
    kind?: unknown;
    message?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  if (typeof e.code === "string" && (PG_CODES.has(e.code) || PRISMA_CODES.has(e.code))) return true;
  if (typeof e.kind === "string" && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.message === "string" && MESSAGES.test(e.message)) return true;
  return isDatabaseUnavailable(e.cause, depth + 1) || isDatabaseUnavailable(e.meta?.driverAdapterError, depth + 1);
}

/** Seconds a client is asked to wait before retrying. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;
