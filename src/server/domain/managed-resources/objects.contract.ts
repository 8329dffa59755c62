import { z } from "zod";
import { zId, zWorkspaceId } from "@/server/platform/ids";

/** Presigned object URLs of a bucket (issue #33 item 6; docs/decisions.md "Limits"). */
export const PRESIGN_MAX_SECONDS = 7 * 86_400;

export const ZPresignRequest = z
  .strictObject({
    /** What the URL allows: GET reads the object, PUT stores the request body under the key, DELETE removes it. */
    method: z.enum(["GET", "PUT", "DELETE"]),
    /** The object's key (1..1024 characters, no control characters), as the bucket's own API names it. */
    key: z
      .string()
      .min(1)
      .max(1024)
      .refine(
        (k) => ![...k].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f),
        "must not contain control characters",
      ),
    /** Seconds the URL stays valid: 1 s .. 7 days (default 900). */
    expires_in: z.number().int().min(1).max(PRESIGN_MAX_SECONDS).default(900),
  })
  .meta({ id: "ManagedObjectPresignRequest" });

export const ZPresigned = z
  .object({
    /** Works without any other credential until expires_at, for this method, bucket and key only. */
    url: z.string(),
    method: z.enum(["GET", "PUT", "DELETE"]),
    key: z.string(),
    expires_at: z.string(),
    /** PUT: the largest body the URL accepts (bytes). */
    max_bytes: z.number().int().min(0).nullable(),
  })
  .meta({ id: "ManagedObjectPresigned" });
export type TPresigned = z.infer<typeof ZPresigned>;

export const ZPresignPath = z.object({ ws: zWorkspaceId, mres: zId("mres") });
