import { handleJwks } from "@/server/http/well-known";

export const dynamic = "force-dynamic";

/** Served at /.well-known/jwks.json (rewrite in next.config.mjs). */
export function GET(): Promise<Response> {
  return handleJwks();
}
