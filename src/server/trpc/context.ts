import "server-only";
import type { AppError } from "@/server/platform/errors";

/** Who is calling. Roles are never baked into tokens: they are read live per workspace. */
export type TPrincipal = {
  kind: "user";
  userId: string;
  /** The personal API token (jti) or console session that authenticated the call. */
  via: { kind: "api_token"; tokenId: string } | { kind: "session" } | { kind: "cli" };
};

export type TContext = {
  correlationId: string;
  clientReference?: string;
  principal: TPrincipal | null;
  /** Why a presented credential was refused: authed procedures rethrow it as 401. */
  authError?: AppError;
  /** Response headers a procedure adds (Location, ...). Plain object: trpc-to-openapi drops Headers. */
  resHeaders: Record<string, string>;
  transport: "rest" | "trpc";
  /** performance.now() at the request's arrival at the REST boundary (Server-Timing of invocations). */
  startedAt?: number;
  request: { method: string; path: string };
};

export function createContextInner(
  seed: Partial<TContext> & Pick<TContext, "correlationId" | "transport" | "request">,
): TContext {
  return { principal: null, resHeaders: {}, ...seed };
}
