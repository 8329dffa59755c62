import { handleBridge } from "@/server/bridge/handler";

export const dynamic = "force-dynamic";

const BRIDGE_PATH = /^\/v1\/capabilities\/([^/]+)\/([^/]+)$/;

/**
 * The Bridge: its own route (wins over v1/[...path]); the handler is framework-free.
 * The names come from the raw path, as every other server reaches the handler
 * (a malformed escape is then an unknown capability, 404, not a decode error).
 */
export async function POST(
  req: Request,
  ctx: { params: Promise<{ capability: string; action: string }> },
): Promise<Response> {
  const raw = BRIDGE_PATH.exec(new URL(req.url).pathname);
  const { capability, action } = raw ? { capability: raw[1]!, action: raw[2]! } : await ctx.params;
  return handleBridge(req, capability, action);
}
