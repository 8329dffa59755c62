import { z } from "zod";
import { zId } from "@/server/platform/ids";

/** The answer of a binding's "Test" button (docs/decisions.md "Test buttons"). */
export const ZBindingTestResult = z
  .object({
    binding_id: zId("bind"),
    capability: z.string(),
    provider: z.string(),
    action: z
      .string()
      .describe(
        "The action the test made: ai.generate `generate` with max_tokens 1; email.send `smtp_check` (connect, EHLO, STARTTLS and AUTH when offered; no mail is sent); storage.object `probe` (PUT, GET, DELETE of a 16-byte object under `_capstan-test/`)",
      ),
    model: z.string().nullable(),
    ok: z.boolean().describe("True when the provider answered the call"),
    duration_ms: z.number().int().describe("Latency of the provider call as seen from Capstan"),
    answer: z
      .string()
      .nullable()
      .describe(
        "The provider's answer in words (the text, the embedding's length, what the SMTP server or the bucket answered), when ok",
      ),
    tokens: z
      .object({ input: z.number().int(), output: z.number().int() })
      .nullable()
      .describe("What the provider reported using; not charged to any budget"),
    error: z.string().nullable().describe("Why the call failed, in words"),
    error_kind: z
      .enum(["rejected", "unavailable", "credential"])
      .nullable()
      .describe(
        "rejected: the provider refused the request (key, model); unavailable: no answer or a 5xx/429; credential: the binding's credential is revoked or expired",
      ),
    tested_at: z.string(),
  })
  .meta({ id: "ProviderBindingTestResult" });
export type TBindingTestResult = z.infer<typeof ZBindingTestResult>;
