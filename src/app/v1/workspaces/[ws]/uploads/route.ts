import { handleUpload } from "@/server/http/uploads-handler";

export const dynamic = "force-dynamic";

export async function POST(req: Request, ctx: { params: Promise<{ ws: string }> }): Promise<Response> {
  return handleUpload(req, (await ctx.params).ws);
}
