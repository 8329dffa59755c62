import { deleteObject, getObject, MAX_OBJECT_BYTES, putObject } from "@/server/domain/managed-resources/bucket-objects";
import { overLimit } from "@/server/domain/managed-resources/delivery";
import { verifyPresigned } from "@/server/domain/managed-resources/presign";
import { readBodyBytes } from "@/server/platform/body";
import { resolveCorrelation } from "@/server/platform/correlation";
import { getDb } from "@/server/platform/db/client";
import { AppError, problemResponse } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";

/**
 * GET, PUT and DELETE /v1/buckets/{mres}/{key}: a presigned object URL
 * (domain/managed-resources/presign.ts), with no other authentication. The
 * signature is checked before anything is read or written. An object is
 * served as an attachment under a sandboxing CSP with `nosniff`, so bytes an
 * app stored as text/html never run on Capstan's origin.
 */
export async function handleBucketObject(req: Request, mres: string, rawKey: string): Promise<Response> {
  const instance = new URL(req.url).pathname;
  let correlationId = "";
  try {
    correlationId = resolveCorrelation(req.headers).correlationId;
    await getDb();
    const { workspaceId, key } = await verifyPresigned(req, mres, rawKey);
    const base = { "x-correlation-id": correlationId };
    switch (req.method.toUpperCase()) {
      case "GET": {
        const o = await getObject(workspaceId, mres, key);
        if (!o) throw new AppError("not_found", `No object ${key} in this bucket`);
        return new Response(new Uint8Array(o.bytes), {
          status: 200,
          headers: {
            ...base,
            "content-type": o.contentType,
            "content-length": String(o.bytes.length),
            etag: `"${o.sha256}"`,
            "last-modified": o.updatedAt.toUTCString(),
            "x-content-type-options": "nosniff",
            "content-security-policy": "default-src 'none'; sandbox",
            "content-disposition": "attachment",
            "cache-control": "private, no-store",
          },
        });
      }
      case "PUT": {
        const over = await overLimit(workspaceId, mres);
        if (over) throw new AppError("conflict", over, { reason: "size_limit_exceeded" });
        const bytes = await readBodyBytes(req, MAX_OBJECT_BYTES);
        const stored = await putObject(
          workspaceId,
          mres,
          key,
          bytes,
          req.headers.get("content-type") ?? "application/octet-stream",
        );
        return new Response(JSON.stringify({ key, size_bytes: stored.sizeBytes, sha256: stored.sha256 }), {
          status: 200,
          headers: { ...base, "content-type": "application/json", etag: `"${stored.sha256}"` },
        });
      }
      case "DELETE":
        if (!(await deleteObject(workspaceId, mres, key)))
          throw new AppError("not_found", `No object ${key} in this bucket`);
        return new Response(null, { status: 204, headers: base });
      default:
        throw new AppError("bad_request", "Presigned URLs serve GET, PUT and DELETE", { status: 405 });
    }
  } catch (err) {
    return problemResponse(err, { instance, correlationId: correlationId || newId("evt") });
  }
}

/** OpenAPI path item of the presigned object route (outside tRPC; no bearer: the query string is the credential). */
export function bucketObjectOpenApiPaths(): Record<string, unknown> {
  const problem = (description: string) => ({
    description,
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  });
  const q = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }) => ({
    name,
    in: "query",
    required: true,
    description,
    schema,
  });
  const parameters = [
    { name: "mres", in: "path", required: true, schema: { type: "string" } },
    {
      name: "key",
      in: "path",
      required: true,
      description: "The object's key, percent-encoded as one segment",
      schema: { type: "string" },
    },
    q("method", "The method the URL was signed for", { type: "string", enum: ["GET", "PUT", "DELETE"] }),
    q("expires", "Unix seconds after which the URL is refused"),
    q("kid", "The key the signature was made with"),
    q("signature", "HMAC-SHA256, base64url"),
  ];
  const errors = {
    "400": problem("Bad request"),
    "403": problem("Expired, tampered, signed for another bucket, key or method"),
    "404": problem("No such bucket or object"),
    "409": problem("The bucket is not available, or over its size limit (PUT)"),
    "413": problem("Too large"),
    "500": problem("Internal error"),
    "503": problem("Service unavailable"),
  };
  const tags = ["Managed resources"];
  const security: unknown[] = [];
  return {
    "/v1/buckets/{mres}/{key}": {
      get: {
        summary: "Read an object through a presigned URL (POST …/objects:presign)",
        tags,
        security,
        parameters,
        responses: {
          "200": {
            description: "The object's bytes with its content type, as an attachment",
            content: { "*/*": { schema: { type: "string", format: "binary" } } },
          },
          ...errors,
        },
      },
      put: {
        summary: "Store an object through a presigned URL (the request body, at most 32 MiB)",
        tags,
        security,
        parameters,
        requestBody: { required: true, content: { "*/*": { schema: { type: "string", format: "binary" } } } },
        responses: {
          "200": {
            description: "Stored",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["key", "size_bytes", "sha256"],
                  properties: {
                    key: { type: "string" },
                    size_bytes: { type: "integer", minimum: 0 },
                    sha256: { type: "string" },
                  },
                },
              },
            },
          },
          ...errors,
        },
      },
      delete: {
        summary: "Delete an object through a presigned URL",
        tags,
        security,
        parameters,
        responses: { "204": { description: "Deleted" }, ...errors },
      },
    },
  };
}
