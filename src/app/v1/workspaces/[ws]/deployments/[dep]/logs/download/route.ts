import { consolePrincipal } from "@/server/auth/console-principal";
import { handleLogDownload } from "@/server/http/log-download-handler";

export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ ws: string; dep: string }> }): Promise<Response> {
  const { ws, dep } = await ctx.params;
  const principal = req.headers.get("authorization") ? null : await consolePrincipal();
  return handleLogDownload(req, ws, dep, { principal });
}
