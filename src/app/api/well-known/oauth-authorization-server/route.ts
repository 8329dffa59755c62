import { handleOAuthAuthorizationServer } from "@/server/http/well-known";

export const dynamic = "force-dynamic";

/** Served at /.well-known/oauth-authorization-server (RFC 8414; rewrite in next.config.mjs). */
export function GET(): Response {
  return handleOAuthAuthorizationServer();
}
