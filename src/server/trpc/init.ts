import { initTRPC, TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import type { OpenApiMeta } from "trpc-to-openapi";
import { ZodError } from "zod";
import { AppError, toAppError, toProblem, zodIssuesToErrors } from "@/server/platform/errors";
import { assertSafeInput } from "@/server/platform/hostile-input";
import type { TContext } from "./context";

export type TMeta = OpenApiMeta<{
  /** Success status on REST (default 200). 204 procedures output z.void(). */
  successStatus?: 200 | 201 | 202 | 204;
  /** Error statuses beyond the shared set this operation can answer (e.g. 429 on domain verify). */
  extraErrorStatuses?: readonly number[];
}>;

/**
 * The domain catalogue's HTTP statuses as tRPC codes, so the console's
 * transport answers the status REST answers (tRPC would otherwise send 500
 * for every error a procedure throws).
 */
export const TRPC_CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  503: "SERVICE_UNAVAILABLE",
};

/**
 * tRPC errors carry the same problem document REST returns (in `data.problem`),
 * with its status as the HTTP status and its detail as the message, so the
 * console shows exactly what a script would see.
 */
const t = initTRPC
  .context<TContext>()
  .meta<TMeta>()
  .create({
    errorFormatter({ shape, error, ctx, type }) {
      const appError = trpcErrorToAppError(error, type === "query" ? "query" : "body");
      const problem = toProblem(appError, {
        instance: ctx?.request.path ?? "/api/trpc",
        correlationId: ctx?.correlationId ?? "",
      });
      const key = TRPC_CODE_BY_STATUS[problem.status] ?? "INTERNAL_SERVER_ERROR";
      return {
        ...shape,
        code: TRPC_ERROR_CODES_BY_KEY[key],
        message: problem.detail,
        data: { ...shape.data, code: key, httpStatus: problem.status, stack: undefined, problem },
      };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
/**
 * Every procedure (REST, console) first screens its raw input, before any
 * schema runs: strings a text column cannot hold and nesting that would
 * overflow the validator are a 400 naming the field (platform/hostile-input).
 */
export const publicProcedure = t.procedure.use(async ({ getRawInput, next }) => {
  assertSafeInput(await getRawInput(), "request");
  return next();
});
export const createCallerFactory = t.createCallerFactory;

/**
 * The single conversion from a tRPC error to our domain error. Schema failures
 * of a body are 422; of the query, path or headers 400 (`where`).
 */
export function trpcErrorToAppError(error: TRPCError, where: "body" | "query"): AppError {
  const cause = error.cause;
  if (cause instanceof AppError) return cause;
  if (error.code === "BAD_REQUEST" && cause instanceof ZodError) {
    const errors = zodIssuesToErrors(cause.issues);
    return where === "body"
      ? new AppError("validation_failed", "The request body does not match the schema", { errors })
      : new AppError("bad_request", "The request parameters are invalid", { errors, reason: "invalid_parameters" });
  }
  switch (error.code) {
    case "PARSE_ERROR":
      return new AppError("bad_request", "The request body is not valid JSON", { reason: "malformed_json" });
    case "NOT_FOUND":
      return new AppError("not_found", "No such route", { reason: "route_not_found" });
    case "UNSUPPORTED_MEDIA_TYPE":
      return new AppError("bad_request", "Request bodies must be application/json", {
        status: 415,
        reason: "unsupported_media_type",
      });
    case "PAYLOAD_TOO_LARGE":
      return new AppError("bad_request", "The request body is too large", { status: 413, reason: "payload_too_large" });
    case "METHOD_NOT_SUPPORTED":
      return new AppError("bad_request", "Method not allowed", { status: 405, reason: "method_not_allowed" });
    case "UNAUTHORIZED":
      return new AppError("unauthenticated", error.message);
    case "FORBIDDEN":
      return new AppError("forbidden", error.message);
    default:
      return toAppError(cause ?? error);
  }
}
