import { authenticateRequest } from "@/server/domain/identity/authenticate";
import { resolveWorkspaceAccess } from "@/server/domain/identity/access.service";
import { createUpload } from "@/server/domain/source/uploads.service";
import { readBodyBytes } from "@/server/platform/body";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { AppError, problemResponse } from "@/server/platform/errors";
import { isId, newId, PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { invalidToken } from "@/server/platform/jwt";
import type { TPrincipal } from "@/server/trpc/context";

/**
 * POST /v1/workspaces/{ws}/uploads: raw bytes in, an evidence reference out.
 * Its own route because trpc-to-openapi only speaks JSON bodies.
 */
export async function handleUpload(req: Request, ws: string, opts: { principal?: TPrincipal | null } = {}): Promise<Response> {
  const instance = new URL(req.url).pathname;
  let correlationId = "";
  try {
    correlationId = resolveCorrelation(req.headers).correlationId;
    await getDb();
    if (ws !== PLATFORM_WORKSPACE_ID && !isId("ws", ws)) {
      throw new AppError("bad_request", "ws must be a ws_ id", { errors: [{ path: "/ws", message: "must be a ws_ id" }] });
    }
    // A bearer token when one is presented; otherwise the console's session (resolved by the route).
    const auth = opts.principal && !req.headers.get("authorization") ? { principal: opts.principal } : await authenticateRequest(req.headers.get("authorization"));
    if (!auth.principal) throw auth.error ?? invalidToken("no bearer token was presented");
    const access = await resolveWorkspaceAccess({
      principal: auth.principal, workspaceId: ws, minRole: "developer", correlationId, operation: "uploads.create",
    });
    const bytes = await readBodyBytes(req, env().CAPSTAN_MAX_UPLOAD_BYTES);
    const upload = await createUpload(access.userId, ws, bytes, req.headers.get("content-type") ?? "application/octet-stream");
    return Response.json(upload, { status: 201, headers: { "x-correlation-id": correlationId } });
  } catch (err) {
    return problemResponse(err, { instance, correlationId: correlationId || newId("evt") });
  }
}
