import { handleEvidenceDownload } from "@/server/http/evidence-handler";

export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ ws: string; sha256: string }> }): Promise<Response> {
  const { ws, sha256 } = await ctx.params;
  return handleEvidenceDownload(req, ws, sha256);
}
