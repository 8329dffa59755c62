import { z } from "zod";

/** The onboarding checklist's steps, in the order a new workspace does them (docs/decisions.md "Onboarding checklist and workspace settings"). */
export const ONBOARDING_STEPS = ["product", "contract", "provider", "service_identity", "first_call"] as const;
export type TOnboardingStepKey = (typeof ONBOARDING_STEPS)[number];

export const ZOnboardingStep = z.object({
  key: z.enum(ONBOARDING_STEPS),
  done: z.boolean(),
  /** Below /console/w/{ws}: the page that does this step (the most useful one for the current state). */
  path: z.string(),
});

export const ZFirstCall = z.object({
  capability: z.string(),
  action: z.string(),
  client_id: z.string(),
  identity_name: z.string(),
  product_id: z.string(),
  token_url: z.string(),
  call_url: z.string(),
  body: z.record(z.string(), z.unknown()),
  curl: z.string(),
});

export const ZOnboarding = z.object({
  workspace_id: z.string(),
  steps: z.array(ZOnboardingStep),
  complete: z.boolean(),
  /** The caller hid the checklist of this workspace. */
  dismissed: z.boolean(),
  /** Null until an active service identity of a product with a ready contract exists. */
  first_call: ZFirstCall.nullable(),
  /** Why first_call is null, in words, when an identity exists but no call can be suggested. */
  first_call_blocker: z.string().nullable(),
});
export type TOnboarding = z.infer<typeof ZOnboarding>;
export type TOnboardingStep = z.infer<typeof ZOnboardingStep>;
export type TFirstCallView = z.infer<typeof ZFirstCall>;
