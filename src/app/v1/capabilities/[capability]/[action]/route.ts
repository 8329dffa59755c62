import { handleBridge } from "@/server/bridge/handler";

export const dynamic = "force-dynamic";

/** The Bridge: its own route (wins over v1/[...path]); the handler is framework-free. */
export async function POST(req: Request, ctx: { params: Promise<{ capability: string; action: string }> }): Promise<Response> {
  const { capability, action } = await ctx.params;
  return handleBridge(req, capability, action);
}
