import { router } from "@/server/trpc/init";
import { workspaceProcedure } from "@/server/trpc/procedures";
import { ZPresigned, ZPresignPath, ZPresignRequest } from "./objects.contract";
import { presignObject } from "./presign";

/** A bucket's objects from outside an app: presigned URLs (developers, who could read them through a deployed app anyway). */
const tags = ["Managed resources"];

export const objectsRouter = router({
  presign: workspaceProcedure("developer")
    .meta({
      openapi: {
        method: "POST",
        path: "/v1/workspaces/{ws}/managed-resources/{mres}/objects:presign",
        tags,
        summary:
          "A URL that reads, writes or deletes one object of a bucket without other credentials, until it expires (1 s .. 7 days)",
      },
    })
    .input(ZPresignRequest.extend(ZPresignPath.shape))
    .output(ZPresigned)
    .mutation(({ ctx, input }) => presignObject(ctx.workspace.workspaceId, input.mres, input)),
});
