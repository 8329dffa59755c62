import { consolePrincipal } from "@/server/auth/console-principal";
import { handleUpload } from "@/server/http/uploads-handler";

export const dynamic = "force-dynamic";

export async function POST(req: Request, ctx: { params: Promise<{ ws: string }> }): Promise<Response> {
  const principal = req.headers.get("authorization") ? null : await consolePrincipal();
  return handleUpload(req, (await ctx.params).ws, { principal });
}
