import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from "./db-unavailable";

/**
 * The one domain error type. Services throw AppError; each transport converts
 * it exactly once: REST/Bridge -> problem+json (problemResponse), tRPC ->
 * errorFormatter (trpc/init.ts). The catalogue below is the closed set of
 * spec section 7 codes, kept as data: code -> status -> title.
 */
export const ERROR_CATALOGUE = {
  bad_request: { status: 400, title: "Bad request" },
  unauthenticated: { status: 401, title: "Unauthenticated" },
  forbidden: { status: 403, title: "Forbidden" },
  not_found: { status: 404, title: "Not found" },
  conflict: { status: 409, title: "Conflict" },
  validation_failed: { status: 422, title: "Validation failed" },
  rate_limited: { status: 429, title: "Rate limited" },
  internal: { status: 500, title: "Internal error" },
  unavailable: { status: 503, title: "Service unavailable" },
} as const;

export type TErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as TErrorCode[];

/** Statuses a code may carry besides its default (e.g. 413 and 415 are bad requests, 410 a resource that is gone). */
const EXTRA_STATUSES: Partial<Record<TErrorCode, readonly number[]>> = {
  bad_request: [405, 413, 415],
  not_found: [410],
  unavailable: [502, 504],
};

/**
 * A problem document's `title` is the title of its HTTP status, never of its
 * code's default status: a 410 says "Gone", not "Not found". Every status a
 * problem may carry is here (the codes' defaults and EXTRA_STATUSES); the
 * response validator of the tests holds the same table and checks every
 * problem+json body against the response's own status.
 */
export const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: "Bad request",
  401: "Unauthenticated",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  410: "Gone",
  413: "Payload too large",
  415: "Unsupported media type",
  422: "Validation failed",
  429: "Rate limited",
  500: "Internal error",
  502: "Bad gateway",
  503: "Service unavailable",
  504: "Gateway timeout",
};

/** The problem title of an HTTP status (a status outside the table falls back to its class). */
export function statusTitle(status: number): string {
  return STATUS_TITLES[status] ?? (status >= 500 ? "Internal error" : "Bad request");
}

/** The catalogue code a bare HTTP status stands for (its default owner, else the code that lists it as extra). */
export function codeForStatus(status: number): TErrorCode {
  const owner =
    ERROR_CODES.find((c) => ERROR_CATALOGUE[c].status === status) ??
    ERROR_CODES.find((c) => EXTRA_STATUSES[c]?.includes(status));
  return owner ?? (status >= 500 ? "internal" : "bad_request");
}

/**
 * A problem document for transports outside the REST boundary (raw node
 * sockets, the runner gateway, bucket APIs): the same rules, the code, status
 * and title always from the HTTP status the caller writes.
 */
export function problemBody(
  status: number,
  detail: string,
  extra: { reason?: string; instance?: string; correlation_id?: string } = {},
): string {
  const code = codeForStatus(status);
  return JSON.stringify({
    type: PROBLEM_BASE + (extra.reason ?? code),
    title: statusTitle(status),
    status,
    detail,
    code,
    ...extra,
  });
}

export type TFieldError = { path: string; message: string; code?: string };

export interface AppErrorOptions {
  /** A finer machine-readable reason, e.g. `idempotency_key_reused`. */
  reason?: string;
  errors?: TFieldError[];
  /** Override the code's default status (only within EXTRA_STATUSES). */
  status?: number;
  /** Response headers the error needs (WWW-Authenticate, Retry-After, Allow). */
  headers?: Record<string, string>;
  /** Extra members for the problem document (e.g. rejection detail). */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: TErrorCode;
  readonly status: number;
  readonly reason?: string;
  readonly errors?: TFieldError[];
  readonly headers: Record<string, string>;
  readonly extensions?: Record<string, unknown>;

  constructor(code: TErrorCode, detail: string, opts: AppErrorOptions = {}) {
    super(detail, { cause: opts.cause });
    this.name = "AppError";
    this.code = code;
    const allowed = [ERROR_CATALOGUE[code].status, ...(EXTRA_STATUSES[code] ?? [])];
    this.status = opts.status && allowed.includes(opts.status) ? opts.status : ERROR_CATALOGUE[code].status;
    this.reason = opts.reason;
    this.errors = opts.errors;
    this.headers = opts.headers ?? {};
    this.extensions = opts.extensions;
  }
}

export const notFound = (what: string) => new AppError("not_found", `${what} was not found`);
export const forbidden = (detail: string, reason?: string) => new AppError("forbidden", detail, { reason });
export const conflict = (detail: string, reason?: string) => new AppError("conflict", detail, { reason });
export const badRequest = (detail: string, opts: AppErrorOptions = {}) => new AppError("bad_request", detail, opts);

export type TProblem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: TErrorCode;
  correlation_id: string;
  reason?: string;
  errors?: TFieldError[];
  [extension: string]: unknown;
};

export const PROBLEM_BASE = "https://capstan.dev/problems/";

/**
 * Anything thrown becomes an AppError; unknown errors never leak their message.
 * The database's answers to a lost race are not internal errors: a row
 * deleted or changed by a concurrent request is a 404, a unique key taken or
 * a serialization failure a 409 (services map the races they know; this is
 * the net under the rest).
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const raced = raceToAppError(err);
  if (raced) return raced;
  // No connection to be had (limit reached, pooler full, server restarting): nothing was done, retry.
  if (isDatabaseUnavailable(err)) {
    return new AppError("unavailable", "The database has no connection free for this request; retry shortly", {
      reason: "database_unavailable",
      headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) },
      cause: err,
    });
  }
  return new AppError("internal", "An internal error occurred. Quote the correlation id when reporting it.", {
    cause: err,
  });
}

function raceToAppError(err: unknown): AppError | null {
  const e = err as { name?: unknown; code?: unknown } | null;
  if (!e || typeof e !== "object" || e.name !== "PrismaClientKnownRequestError") return null;
  switch (e.code) {
    case "P2025":
      return new AppError("not_found", "The resource was not found (a concurrent request may have just deleted it)", {
        cause: err,
      });
    case "P2002":
      return new AppError("conflict", "A concurrent request created the same resource", {
        reason: "already_exists",
        cause: err,
      });
    case "P2034":
      return new AppError("conflict", "A concurrent request changed the same resource; retry", {
        reason: "write_conflict",
        cause: err,
      });
    default:
      return null;
  }
}

export function toProblem(err: AppError, ctx: { instance: string; correlationId: string }): TProblem {
  const problem: TProblem = {
    type: PROBLEM_BASE + (err.reason ?? err.code),
    title: statusTitle(err.status),
    status: err.status,
    detail: err.message,
    instance: ctx.instance,
    code: err.code,
    correlation_id: ctx.correlationId,
  };
  if (err.reason) problem.reason = err.reason;
  if (err.errors?.length) problem.errors = err.errors;
  if (err.extensions) Object.assign(problem, err.extensions);
  return problem;
}

export function problemResponse(
  err: unknown,
  ctx: { instance: string; correlationId: string; headers?: Record<string, string> },
): Response {
  const appErr = toAppError(err);
  const headers = new Headers({
    "content-type": "application/problem+json",
    "x-correlation-id": ctx.correlationId,
    ...ctx.headers,
    ...appErr.headers,
  });
  return new Response(JSON.stringify(toProblem(appErr, ctx)), { status: appErr.status, headers });
}

/** zod issue path -> JSON-pointer-ish string: ["a", 0, "b"] -> "/a/0/b". */
export function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return "/" + path.map((p) => String(p)).join("/");
}

export function zodIssuesToErrors(
  issues: ReadonlyArray<{
    path: ReadonlyArray<PropertyKey>;
    message: string;
    code?: string;
    keys?: ReadonlyArray<string>;
  }>,
): TFieldError[] {
  return issues.flatMap((i) =>
    // An unknown member points at itself, not at its parent object.
    i.code === "unrecognized_keys" && i.keys?.length
      ? i.keys.map((k) => ({ path: issuePath([...i.path, k]), message: "is not allowed" }))
      : [{ path: i.path.length ? issuePath(i.path) : "/", message: i.message }],
  );
}
