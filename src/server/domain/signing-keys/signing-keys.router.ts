import { z } from "zod";
import { listSigningKeys, rotationTimings } from "@/server/domain/signing-keys/signing-keys.service";
import { router } from "@/server/trpc/init";
import { platformAdminProcedure } from "@/server/trpc/procedures";
import { ZSigningKeys } from "./signing-keys.contract";

/** Read-only: keys rotate with `capstan rotate-signing-key` (docs/security.md). */
export const signingKeysRouter = router({
  list: platformAdminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/platform/signing-keys",
        tags: ["Service identities"],
        summary: "The token signing keys with their rotation state and schedule",
      },
    })
    .input(z.object({}))
    .output(ZSigningKeys)
    .query(async () => {
      const t = rotationTimings();
      return {
        items: (await listSigningKeys()) as z.infer<typeof ZSigningKeys>["items"],
        jwks_max_age_seconds: t.jwksMaxAgeSeconds,
        publish_lead_seconds: t.publishLeadSeconds,
        clock_skew_seconds: t.skewSeconds,
      };
    }),
});
