import { NextResponse, type NextRequest } from "next/server";

/**
 * The host route of surfaces: a request whose Host is
 * `srf-<id body>.<surface domain>` (or `srf_<id body>...`) is served by the
 * surface route handler (app/s/[srf]). The matcher only lets such hosts in,
 * so console and API requests never pay for this function.
 */
export function proxy(req: NextRequest): NextResponse {
  const host = req.headers.get("host") ?? "";
  const m = /^srf[-_]([0-7][0-9a-hjkmnp-tv-z]{25})\./i.exec(host);
  if (!m) return NextResponse.next();
  const url = req.nextUrl.clone();
  url.pathname = `/s/srf_${m[1]!.toLowerCase()}${req.nextUrl.pathname}`;
  return NextResponse.rewrite(url);
}

export const config = {
  matcher: [
    { source: "/:path*", has: [{ type: "host", value: "srf[-_][0-7][0-9a-hjkmnp-tv-zA-HJKMNP-TV-Z]{25}\\..*" }] },
  ],
};
