import { getDb } from "@/server/platform/db/client";
import { jwks } from "@/server/platform/jwt";

export const dynamic = "force-dynamic";

/** Served at /.well-known/jwks.json (rewrite in next.config.mjs). */
export async function GET(): Promise<Response> {
  await getDb();
  return Response.json(await jwks(), { headers: { "cache-control": "public, max-age=300" } });
}
