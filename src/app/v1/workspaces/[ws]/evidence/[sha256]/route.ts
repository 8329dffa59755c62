import { consolePrincipal } from "@/server/auth/console-principal";
import { handleEvidenceDownload } from "@/server/http/evidence-handler";

export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ ws: string; sha256: string }> }): Promise<Response> {
  const { ws, sha256 } = await ctx.params;
  const principal = req.headers.get("authorization") ? null : await consolePrincipal();
  return handleEvidenceDownload(req, ws, sha256, { principal });
}
