import { roleAtLeast, type TRole } from "@/server/domain/identity/workspace-access.service";
import { scopedDb } from "@/server/platform/db/scoped";

/**
 * Who a release's audience admits (docs/decisions.md "The production path: staging, promotion, rollback"):
 *  - `internal`: people who build the product, members with the developer
 *    role or above (owner, admin, developer), signed in;
 *  - `workspace`: every member of the release's workspace, viewers included,
 *    signed in;
 *  - `custom`: anyone, anonymous requests included: the app runs its own
 *    sign-in (it is the only audience a custom domain serves).
 * A surface that is no release's (previews, plain staging deployments) keeps
 * the spec's `preview_direct` policy: its link is the access.
 */
export type TAudience = "internal" | "workspace" | "custom";

export const AUDIENCE_WORDS: Record<TAudience, string> = {
  internal: "people who build the product (developers, admins and owners of its workspace)",
  workspace: "members of its workspace",
  custom: "anyone",
};

/** A member's role in the workspace, or null (not a member). */
export async function memberRole(workspaceId: string, userId: string): Promise<TRole | null> {
  const m = await scopedDb(workspaceId).membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId } },
    select: { role: true },
  });
  return (m?.role as TRole | undefined) ?? null;
}

export function roleAdmitted(audience: TAudience, role: TRole | null): boolean {
  if (audience === "custom") return true;
  if (!role) return false;
  return audience === "workspace" || roleAtLeast(role, "developer");
}

export type TAudienceRefusal = { status: 401 | 403; title: string; detail: string; reason: string };

/** The web routes' check: null when admitted, else the refusal to answer. */
export async function audienceRefusal(
  audience: TAudience | null,
  workspaceId: string,
  route: { customDomain: boolean; callerOf?: () => Promise<string | null> },
): Promise<TAudienceRefusal | null> {
  if (!audience || audience === "custom") return null;
  const who = AUDIENCE_WORDS[audience];
  if (route.customDomain) {
    return {
      status: 403,
      title: "This release is not public",
      reason: "audience_not_public",
      detail: `This release is for ${who}; a custom domain serves only releases whose audience is custom (anyone). Open it through Capstan's console instead.`,
    };
  }
  const userId = route.callerOf ? await route.callerOf() : null;
  if (!userId) {
    return {
      status: 401,
      title: "Sign in to open this release",
      reason: "audience_sign_in",
      detail: `This release is for ${who}: sign in to the Capstan console and open it from there (or send a Capstan API token).`,
    };
  }
  if (!roleAdmitted(audience, await memberRole(workspaceId, userId))) {
    return {
      status: 403,
      title: "This release is not for you",
      reason: "audience_denied",
      detail: `This release is for ${who}, which does not include your account.`,
    };
  }
  return null;
}
