import { hostOf, isVerifiedHostname } from "@/server/domain/domains/domain-routes";

export const dynamic = "force-dynamic";

/**
 * For the TLS terminator in front of Capstan (Caddy's `on_demand_tls { ask
 * http://capstan:3000/tls/ask }`, which calls `?domain=<hostname>`): 200 when
 * the hostname is a verified custom domain, so a certificate may be issued
 * for it; 404 otherwise. Answers nothing else, so it is safe to leave open to
 * the terminator; it is not part of /v1.
 */
export async function GET(req: Request): Promise<Response> {
  const host = hostOf(new URL(req.url).searchParams.get("domain"));
  const ok = host !== null && (await isVerifiedHostname(host));
  return new Response(ok ? "ok\n" : "not a verified domain\n", {
    status: ok ? 200 : 404,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
}
