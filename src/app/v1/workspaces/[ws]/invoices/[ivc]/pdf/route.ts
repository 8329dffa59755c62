import { consolePrincipal } from "@/server/auth/console-principal";
import { handleInvoicePdf } from "@/server/http/invoice-pdf-handler";

export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ ws: string; ivc: string }> }): Promise<Response> {
  const { ws, ivc } = await ctx.params;
  const principal = req.headers.get("authorization") ? null : await consolePrincipal();
  return handleInvoicePdf(req, ws, ivc, { principal });
}
