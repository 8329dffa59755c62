import { openApiJson } from "@/server/http/openapi";

export const dynamic = "force-dynamic";

export function GET(): Response {
  return new Response(openApiJson(), {
    headers: { "content-type": "application/json", "cache-control": "public, max-age=60" },
  });
}
