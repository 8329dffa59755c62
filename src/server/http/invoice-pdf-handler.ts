import { authenticateRequest } from "@/server/domain/identity/authenticate";
import { resolveWorkspaceAccess } from "@/server/domain/identity/workspace-access.service";
import { invoicePdf } from "@/server/domain/billing/invoice-delivery.service";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { AppError, problemResponse } from "@/server/platform/errors";
import { isId, newId } from "@/server/platform/ids";
import { invalidToken } from "@/server/domain/signing-keys/jwt.service";
import type { TPrincipal } from "@/server/trpc/context";

/**
 * GET /v1/workspaces/{ws}/invoices/{ivc}/pdf: the invoice as a PDF rendered
 * on the server (docs/decisions.md "Invoices as receivables").
 * Bytes, not JSON, so it has its own route; owner/admin only, since the PDF
 * carries the billing address (as the console's printable invoice does).
 */
export async function handleInvoicePdf(
  req: Request,
  ws: string,
  ivc: string,
  opts: { principal?: TPrincipal | null } = {},
): Promise<Response> {
  const instance = new URL(req.url).pathname;
  let correlationId = "";
  try {
    correlationId = resolveCorrelation(req.headers).correlationId;
    await getDb();
    if (!isId("ws", ws))
      throw new AppError("bad_request", "ws must be a ws_ id", {
        errors: [{ path: "/ws", message: "must be a ws_ id" }],
      });
    const auth =
      opts.principal && !req.headers.get("authorization")
        ? { principal: opts.principal }
        : await authenticateRequest(req.headers.get("authorization"));
    if (!auth.principal) throw auth.error ?? invalidToken("no bearer token was presented");
    await resolveWorkspaceAccess({
      principal: auth.principal,
      workspaceId: ws,
      minRole: "admin",
      correlationId,
      operation: "billing.invoice_pdf",
    });
    if (!isId("ivc", ivc))
      throw new AppError("bad_request", "ivc must be an ivc_ id", {
        errors: [{ path: "/ivc", message: "must be an ivc_ id" }],
      });
    const { bytes, filename } = await invoicePdf(ws, ivc);
    return new Response(new Uint8Array(bytes), {
      status: 200,
      headers: {
        "content-type": "application/pdf",
        "content-length": String(bytes.length),
        "x-content-type-options": "nosniff",
        "content-disposition": `attachment; filename="${filename}"`,
        "cache-control": "private, no-store",
        "x-correlation-id": correlationId,
      },
    });
  } catch (err) {
    return problemResponse(err, { instance, correlationId: correlationId || newId("evt") });
  }
}

export function invoicePdfOpenApiPaths(): Record<string, unknown> {
  const problem = (description: string) => ({
    description,
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  });
  const str = { type: "string" };
  return {
    "/v1/workspaces/{ws}/invoices/{ivc}/pdf": {
      get: {
        summary: "The invoice as a PDF, rendered on the server (owner/admin: it carries the billing address)",
        tags: ["Billing"],
        security: [{ bearerAuth: [] }],
        parameters: [
          { name: "ws", in: "path", required: true, schema: str },
          { name: "ivc", in: "path", required: true, schema: str },
        ],
        responses: {
          "200": {
            description: "The PDF",
            content: { "application/pdf": { schema: { type: "string", format: "binary" } } },
          },
          "400": problem("Bad request"),
          "401": problem("Unauthenticated"),
          "403": problem("Forbidden"),
          "404": problem("Not found"),
          "500": problem("Internal error"),
          "503": problem("Service unavailable"),
        },
      },
    },
  };
}
