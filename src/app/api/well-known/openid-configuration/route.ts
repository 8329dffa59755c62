import { handleOpenIdConfiguration } from "@/server/http/well-known";

export const dynamic = "force-dynamic";

/** Served at /.well-known/openid-configuration (rewrite in next.config.mjs). */
export function GET(): Response {
  return handleOpenIdConfiguration();
}
