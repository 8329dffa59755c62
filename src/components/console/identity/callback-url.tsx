/**
 * Only same-origin paths are followed after sign-in (no open redirect).
 * next-auth itself may hand us an absolute URL on our own origin.
 */
export function safeCallbackUrl(raw: string | undefined, origin?: string): string {
  if (!raw) return "/console";
  if (raw.startsWith("/") && !raw.startsWith("//") && !raw.startsWith("/\\")) return raw;
  if (origin) {
    try {
      const url = new URL(raw);
      if (url.origin === origin) return url.pathname + url.search + url.hash;
    } catch {
      // not a URL: fall through
    }
  }
  return "/console";
}
