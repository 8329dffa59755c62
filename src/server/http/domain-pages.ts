import { AppError, problemResponse } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";

/**
 * What a Host that is not a routable custom domain gets from Capstan: a
 * small page for browsers (Accept: text/html) and a problem document for
 * everything else, never the console. Kept in the HTTP layer: the domain
 * layer only says which case it is (domain-routes.ts).
 */
export type TDomainPageCase = "unknown" | "pending_verification" | "failed";

const TEXT: Record<TDomainPageCase, { title: string; detail: (host: string) => string; reason: string }> = {
  unknown: {
    title: "This domain is not connected",
    detail: (h) =>
      `${h} points at Capstan, but no workspace has added it. Its owner adds it under Domains in the Capstan console and verifies it.`,
    reason: "domain_not_found",
  },
  pending_verification: {
    title: "This domain is not verified yet",
    detail: (h) =>
      `${h} was added to Capstan and waits for its DNS records: publish the TXT and routing records shown under Domains, then verify.`,
    reason: "domain_not_verified",
  },
  failed: {
    title: "This domain failed verification",
    detail: (h) =>
      `${h} was added to Capstan, but its DNS check failed; the owner finds the reason in words under Domains, fixes the records and verifies again.`,
    reason: "domain_not_verified",
  },
};

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function domainPage(accept: string | undefined, host: string, which: TDomainPageCase, path: string): Response {
  const t = TEXT[which];
  const detail = t.detail(host);
  if ((accept ?? "").includes("text/html")) {
    const html =
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(t.title)}</title>` +
      `<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:15vh auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}p{color:#555}</style></head>` +
      `<body><main><h1>${esc(t.title)}</h1><p>${esc(detail)}</p><p><small>Capstan · 404 · ${esc(t.reason)}</small></p></main></body></html>`;
    return new Response(html, {
      status: 404,
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
    });
  }
  return problemResponse(new AppError("not_found", detail, { reason: t.reason }), {
    instance: path.split("?")[0] || "/",
    correlationId: newId("evt"),
  });
}
