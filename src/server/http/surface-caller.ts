import { decode } from "next-auth/jwt";
import { authSecret } from "@/server/auth/options";
import { authenticateRequest } from "@/server/domain/identity/authenticate";

/**
 * Who is asking, on Capstan's own surface routes (path and host route), for
 * a release whose audience is not everyone: a control-audience bearer token
 * when the request presents one, else the console's next-auth session cookie
 * (sent on the path route, which shares the console's origin). Null when
 * neither proves anyone. Never used on a custom domain: there both belong to
 * the app.
 */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?next-auth\.session-token=([^;]+)/;

export async function surfaceCaller(
  authorization: string | null | undefined,
  cookie: string | null | undefined,
): Promise<string | null> {
  if (authorization && /^Bearer\s/i.test(authorization)) {
    const auth = await authenticateRequest(authorization);
    if (auth.principal) return auth.principal.userId;
  }
  const m = cookie ? SESSION_COOKIE.exec(cookie) : null;
  if (!m) return null;
  try {
    const token = await decode({ token: decodeURIComponent(m[1]!), secret: authSecret() });
    return typeof token?.uid === "string" ? token.uid : null;
  } catch {
    return null;
  }
}
