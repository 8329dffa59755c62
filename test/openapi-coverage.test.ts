import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/server/http/openapi";
import { HTTP_METHODS } from "@/server/http/openapi-normalize";
import { appRouter } from "@/server/trpc/root";
import type { TMeta } from "@/server/trpc/init";

/**
 * Every operation the project serves is in the document: each tRPC procedure
 * published under /v1 and each Next.js route handler (method by method),
 * found on disk, so a new route cannot land undocumented. Routes that are not
 * the API are named here with the reason.
 */
const NOT_THE_API: Record<string, string> = {
  "/v1/{...path}": "the REST boundary's catch-all: its operations are the tRPC procedures checked below",
  "/api/trpc/{trpc}": "the console's own tRPC transport (session cookie), not a published API",
  "/api/auth/{...nextauth}": "NextAuth's sign-in endpoints for the console",
  "/s/{srf}/{...path}": "a hosted app's traffic through its surface: the app's responses, not Capstan's API",
  "/tls/ask": "the TLS terminator's on-demand certificate check (infrastructure in front of Capstan, not the API)",
  "/metrics":
    'Prometheus exposition for the operator\'s scraper (text format, its own token or listener; README "Metrics"), not the API',
};

const appDir = path.resolve(import.meta.dirname, "../src/app");

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return routeFiles(full);
    return e.name === "route.ts" ? [full] : [];
  });
}

function template(file: string): string {
  const rel = path.relative(appDir, path.dirname(file)).split(path.sep);
  return (
    "/" +
    rel
      .map((seg) =>
        seg.replace(
          /^\[\[?(\.\.\.)?(\w+)\]?\]$/,
          (_m, dots: string | undefined, name: string) => `{${dots ?? ""}${name}}`,
        ),
      )
      .join("/")
  );
}

function methods(file: string): string[] {
  const src = readFileSync(file, "utf8");
  const out = new Set<string>();
  for (const m of src.matchAll(
    /export\s+(?:async\s+)?(?:function|const)\s+(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b/g,
  ))
    out.add(m[1]!);
  for (const m of src.matchAll(/\bas\s+(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b/g)) out.add(m[1]!);
  return [...out];
}

describe("the document lists every operation the project serves", async () => {
  const doc = buildOpenApiDocument("http://localhost:3000");
  const configPath: string = "../next.config.mjs";
  const nextConfig = (await import(configPath)).default as {
    rewrites?: () => Promise<Array<{ source: string; destination: string }>>;
  };
  const rewrites = (await nextConfig.rewrites?.()) ?? [];
  const served = (p: string) => rewrites.find((r) => r.destination === p)?.source ?? p;

  it("each Next.js route handler, method by method", () => {
    const files = routeFiles(appDir);
    expect(files.length).toBeGreaterThan(5);
    const missing: string[] = [];
    for (const file of files) {
      const t = template(file);
      if (t in NOT_THE_API) continue;
      const p = served(t);
      for (const method of methods(file)) {
        if (!doc.paths[p]?.[method.toLowerCase()]) missing.push(`${method} ${p} (${path.relative(appDir, file)})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("each tRPC procedure published under /v1", () => {
    const procs = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: TMeta } }>;
    const missing = Object.entries(procs)
      .map(([name, p]) => ({ name, openapi: p._def.meta?.openapi }))
      .filter((p) => p.openapi && !doc.paths[p.openapi.path]?.[p.openapi.method.toLowerCase()])
      .map((p) => `${p.openapi!.method} ${p.openapi!.path} (${p.name})`);
    expect(missing).toEqual([]);
  });

  it("states security, a unique operationId and only standard formats on every operation", () => {
    const ids = new Set<string>();
    for (const [p, item] of Object.entries<Record<string, Record<string, unknown>>>(doc.paths)) {
      for (const m of HTTP_METHODS) {
        const op = item[m];
        if (!op) continue;
        expect(op.security, `${m} ${p}`).toBeDefined();
        expect(ids.has(op.operationId as string), `${m} ${p} duplicate operationId`).toBe(false);
        ids.add(op.operationId as string);
      }
    }
    expect(JSON.stringify(doc)).not.toContain('"format":"starts_with"');
  });

  it("marks service-audience operations with x-service-audience", () => {
    expect(doc.paths["/v1/runner/capability-invocations"].post["x-service-audience"]).toBe("runner");
    expect(doc.paths["/v1/capabilities/{capability}/{action}"].post["x-service-audience"]).toBe("bridge");
    const bridgeOps = Object.keys(doc.paths).filter((p) => p.startsWith("/v1/capabilities/"));
    expect(bridgeOps.length).toBeGreaterThan(10);
    for (const p of bridgeOps) expect(doc.paths[p].post["x-service-audience"], p).toBe("bridge");
  });
});
