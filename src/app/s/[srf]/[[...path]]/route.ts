import { handleSurfaceRequest } from "@/server/http/surface-handler";
import { surfaceCaller } from "@/server/http/surface-caller";

export const dynamic = "force-dynamic";

/**
 * Surface traffic: the path route /s/{srf}/... and, rewritten here by
 * src/proxy.ts, the host route srf-<id>.<surface domain>. The handler reads
 * the surface and the upstream path from the request itself.
 */
async function handle(req: Request, ctx: { params: Promise<{ srf: string }> }): Promise<Response> {
  const { srf } = await ctx.params;
  return handleSurfaceRequest(req, srf, {
    callerOf: () => surfaceCaller(req.headers.get("authorization"), req.headers.get("cookie")),
  });
}

export {
  handle as GET,
  handle as POST,
  handle as PUT,
  handle as PATCH,
  handle as DELETE,
  handle as HEAD,
  handle as OPTIONS,
};
