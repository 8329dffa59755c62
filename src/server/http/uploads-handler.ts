import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { authenticateRequest } from "@/server/domain/identity/authenticate";
import { resolveWorkspaceAccess } from "@/server/domain/identity/workspace-access.service";
import { createUpload } from "@/server/domain/source/uploads.service";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { AppError, problemResponse } from "@/server/platform/errors";
import { isId, newId, PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { invalidToken } from "@/server/domain/signing-keys/jwt.service";
import type { TPrincipal } from "@/server/trpc/context";

/**
 * POST /v1/workspaces/{ws}/uploads: raw bytes in, an evidence reference out.
 * Its own route because trpc-to-openapi only speaks JSON bodies.
 */
export async function handleUpload(
  req: Request,
  ws: string,
  opts: { principal?: TPrincipal | null } = {},
): Promise<Response> {
  const instance = new URL(req.url).pathname;
  let correlationId = "";
  try {
    correlationId = resolveCorrelation(req.headers).correlationId;
    await getDb();
    if (ws !== PLATFORM_WORKSPACE_ID && !isId("ws", ws)) {
      throw new AppError("bad_request", "ws must be a ws_ id", {
        errors: [{ path: "/ws", message: "must be a ws_ id" }],
      });
    }
    // A bearer token when one is presented; otherwise the console's session (resolved by the route).
    const auth =
      opts.principal && !req.headers.get("authorization")
        ? { principal: opts.principal }
        : await authenticateRequest(req.headers.get("authorization"));
    if (!auth.principal) throw auth.error ?? invalidToken("no bearer token was presented");
    const access = await resolveWorkspaceAccess({
      principal: auth.principal,
      workspaceId: ws,
      minRole: "developer",
      correlationId,
      operation: "uploads.create",
    });
    const dir = await mkdtemp(path.join(os.tmpdir(), "capstan-upload-"));
    try {
      const file = path.join(dir, "body");
      const size = await bodyToFile(req, env().CAPSTAN_MAX_UPLOAD_BYTES, file);
      const upload = await createUpload(
        access.userId,
        ws,
        { path: file, size },
        req.headers.get("content-type") ?? "application/octet-stream",
      );
      return Response.json(upload, { status: 201, headers: { "x-correlation-id": correlationId } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  } catch (err) {
    return problemResponse(err, { instance, correlationId: correlationId || newId("evt") });
  }
}

/** Streams the request body into `dest` (413 past `max`, as readBodyBytes); returns its size. */
async function bodyToFile(req: Request, max: number, dest: string): Promise<number> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > max) throw tooLarge(max);
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(size > max ? tooLarge(max) : null, chunk);
    },
  });
  const source = req.body
    ? Readable.fromWeb(req.body as import("node:stream/web").ReadableStream<Uint8Array>)
    : Readable.from([]);
  await pipeline(source, count, createWriteStream(dest, { mode: 0o600 }));
  return size;
}

function tooLarge(max: number): AppError {
  return new AppError("bad_request", `The request body exceeds ${max} bytes`, {
    status: 413,
    reason: "payload_too_large",
    extensions: { limit_bytes: max },
  });
}
