import { z } from "zod";
import { router } from "@/server/trpc/init";
import { publicProcedure } from "@/server/trpc/procedures";
import { getPublishedEventSchema } from "./event-schemas";

const tags = ["Events"];

/** A draft 2020-12 JSON Schema document; its `$id` is the `dataschema` of the CloudEvents it describes. */
const ZEventDataSchema = z
  .looseObject({
    $schema: z.literal("https://json-schema.org/draft/2020-12/schema"),
    $id: z.string(),
  })
  .meta({ id: "EventDataSchema", description: "A JSON Schema (draft 2020-12) of an event's data" });

export const eventsRouter = router({
  schema: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/event-schemas/{type}",
        tags,
        protect: false,
        summary: "JSON Schema of an event type's data",
        description:
          "Public. Published for capability.contract_ready (1.2.0), capability.invocation_requested (1.4.0) and " +
          "capability.invocation_resulted (1.1.0). `version`, when given, must be the current version (else 404).",
      },
    })
    .input(
      z.object({
        type: z.string().min(1).max(128),
        version: z
          .string()
          .regex(/^\d{1,6}\.\d{1,6}\.\d{1,6}$/, "must be a semantic version such as 1.2.0")
          .optional(),
      }),
    )
    .output(ZEventDataSchema)
    .query(({ input }) => getPublishedEventSchema(input.type, input.version)),
});
