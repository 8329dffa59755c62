import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import { permits } from "@/server/domain/service-identities/service-identities.contract";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { buildFirstCall, chooseFirstCall } from "./first-call";
import type { TFirstCallView, TOnboarding, TOnboardingStep } from "./onboarding.contract";

/**
 * The onboarding checklist of a workspace, computed from what exists (never
 * from what the browser remembers): a product; a confirmed revision with a
 * ready capability contract; an active credential with a ready provider
 * binding; an active service identity; a completed Bridge call. Any member
 * may read it. `dismissed` is the caller's own choice to hide it.
 */
export async function getOnboarding(workspaceId: string, userId: string): Promise<TOnboarding> {
  const sdb = scopedDb(workspaceId);
  const now = new Date();
  const [product, pendingRevision, readyRevision, credential, bindings, identities, call, dismissal] =
    await Promise.all([
      sdb.product.findFirst({ orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: { id: true } }),
      sdb.revision.findFirst({
        where: { descriptorStatus: "detected" },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        select: { id: true },
      }),
      sdb.revision.findFirst({
        where: { contractStatus: "ready" },
        orderBy: [{ contractConfirmedAt: "desc" }, { id: "desc" }],
        select: { id: true },
      }),
      sdb.credential.findFirst({ where: { revokedAt: null, expiresAt: { gt: now } }, select: { id: true } }),
      sdb.providerBinding.findMany({
        where: { status: "ready" },
        select: { capability: true },
        distinct: ["capability"],
      }),
      sdb.serviceIdentity.findMany({
        where: { kind: "workspace", status: "active", productId: { not: null } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: 20,
        select: { id: true, name: true, productId: true, permissions: true },
      }),
      sdb.capabilityInvocation.findFirst({ where: { outcome: "completed" }, select: { id: true } }),
      sdb.onboardingDismissal.findFirst({ where: { userId }, select: { userId: true } }),
    ]);

  const readyCapabilities = new Set(bindings.map((b) => b.capability));
  const steps: TOnboardingStep[] = [
    { key: "product", done: product !== null, path: "/products" },
    {
      key: "contract",
      done: readyRevision !== null,
      path: pendingRevision ? `/revisions/${pendingRevision.id}` : product ? `/products/${product.id}` : "/products",
    },
    {
      key: "provider",
      done: credential !== null && readyCapabilities.size > 0,
      path: credential ? "/bindings" : "/credentials",
    },
    { key: "service_identity", done: identities.length > 0, path: "/service-identities" },
    { key: "first_call", done: call !== null, path: "/invocations" },
  ];

  let first_call: TFirstCallView | null = null;
  let first_call_blocker: string | null = null;
  // The newest ready contract of each identity's product, in one read (newest first, first per product wins).
  const contracts = new Map<string, unknown>();
  if (identities.length > 0) {
    const revisions = await sdb.revision.findMany({
      where: { productId: { in: [...new Set(identities.map((i) => i.productId!))] }, contractStatus: "ready" },
      orderBy: [{ contractConfirmedAt: "desc" }, { id: "desc" }],
      select: { productId: true, capabilities: true },
    });
    for (const r of revisions) if (!contracts.has(r.productId)) contracts.set(r.productId, r.capabilities);
  }
  for (const identity of identities) {
    const capabilities = contracts.get(identity.productId!);
    if (capabilities === undefined) {
      first_call_blocker ??= `The product of "${identity.name}" has no confirmed capability contract yet.`;
      continue;
    }
    const permissions = (identity.permissions as string[] | null) ?? null;
    const choice = chooseFirstCall((capabilities as TCapabilityEntry[] | null) ?? [], readyCapabilities, (c, a) =>
      permits(permissions, c, a),
    );
    if (!choice) {
      first_call_blocker ??= `"${identity.name}" may call nothing its product's contract allows.`;
      continue;
    }
    const built = buildFirstCall(env().CAPSTAN_PUBLIC_URL, identity.id, choice.entry, choice.action);
    first_call = { ...built, client_id: identity.id, identity_name: identity.name, product_id: identity.productId! };
    first_call_blocker = null;
    break;
  }

  return {
    workspace_id: workspaceId,
    steps,
    complete: steps.every((s) => s.done),
    dismissed: dismissal !== null,
    first_call,
    first_call_blocker,
  };
}

/** Hides (or shows again) the checklist for this person in this workspace. Idempotent. */
export async function setOnboardingDismissed(workspaceId: string, userId: string, dismissed: boolean): Promise<void> {
  const sdb = scopedDb(workspaceId);
  if (dismissed) {
    // Two tabs dismissing at once race on the key: the loser's unique violation means "already dismissed".
    await sdb.onboardingDismissal
      .upsert({ where: { workspaceId_userId: { workspaceId, userId } }, create: { workspaceId, userId }, update: {} })
      .catch((err: unknown) => {
        if ((err as { code?: unknown } | null)?.code !== "P2002") throw err;
      });
  } else {
    await sdb.onboardingDismissal.deleteMany({ where: { userId } });
  }
}
