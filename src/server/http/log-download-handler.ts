import { authenticateRequest } from "@/server/domain/identity/authenticate";
import { resolveWorkspaceAccess } from "@/server/domain/identity/workspace-access.service";
import { deploymentLogDownload } from "@/server/domain/deployments/logs.service";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { AppError, problemResponse } from "@/server/platform/errors";
import { isId, newId } from "@/server/platform/ids";
import { invalidToken } from "@/server/domain/signing-keys/jwt.service";
import type { TPrincipal } from "@/server/trpc/context";

/**
 * GET /v1/workspaces/{ws}/deployments/{dep}/logs/download: the whole log of
 * a deployment as text/plain, streamed (build steps, build log, then every
 * kept byte of the run log), as an attachment. Its own route because it is
 * not JSON; the same role as the logs endpoint (developer).
 */
export async function handleLogDownload(
  req: Request,
  ws: string,
  dep: string,
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
    // Membership first (as every {ws} route): an outsider learns nothing, not even which ids are well-formed.
    await resolveWorkspaceAccess({
      principal: auth.principal,
      workspaceId: ws,
      minRole: "developer",
      correlationId,
      operation: "deployments.logs.download",
    });
    if (!isId("dep", dep))
      throw new AppError("bad_request", "dep must be a dep_ id", {
        errors: [{ path: "/dep", message: "must be a dep_ id" }],
      });
    const { filename, chunks } = await deploymentLogDownload(ws, dep);
    const enc = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next: IteratorResult<string> = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(enc.encode(next.value));
        } catch (err) {
          // Headers are sent: the download ends short, and says why on its last line.
          controller.enqueue(enc.encode(`\n# the download stopped: ${(err as Error).message}\n`));
          controller.close();
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    });
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": "text/plain; charset=utf-8",
        "x-content-type-options": "nosniff",
        "cache-control": "no-store",
        "content-disposition": `attachment; filename="${filename}"`,
        "x-correlation-id": correlationId,
      },
    });
  } catch (err) {
    return problemResponse(err, { instance, correlationId: correlationId || newId("evt") });
  }
}

export function logDownloadOpenApiPaths(): Record<string, unknown> {
  const problem = (description: string) => ({
    description,
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  });
  return {
    "/v1/workspaces/{ws}/deployments/{dep}/logs/download": {
      get: {
        summary:
          "Download a deployment's whole log as text (build steps, build log, every kept line of the run log, each line timestamped)",
        tags: ["Deployments and surfaces"],
        security: [{ bearerAuth: [] }],
        parameters: [
          { name: "ws", in: "path", required: true, schema: { type: "string" } },
          {
            name: "dep",
            in: "path",
            required: true,
            schema: { type: "string", pattern: "^dep_[0-7][0-9a-hjkmnp-tv-z]{25}$" },
          },
        ],
        responses: {
          "200": { description: "The log, streamed", content: { "text/plain": { schema: { type: "string" } } } },
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
