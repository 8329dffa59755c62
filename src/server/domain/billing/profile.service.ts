import type { BillingProfile } from "@/generated/prisma/client";
import { writeAudit } from "@/server/platform/audit";
import { scopedDb } from "@/server/platform/db/scoped";
import { iso } from "@/server/platform/time";
import type { TBillingProfile, TBillingProfileRequest } from "./subscriptions.contract";

/** A workspace's billing profile (who is invoiced, where): read and replaced by its owner. */

type TCaller = { userId: string; correlationId: string };

function toProfile(workspaceId: string, p: BillingProfile | null): TBillingProfile {
  if (!p)
    return {
      workspace_id: workspaceId,
      configured: false,
      legal_name: null,
      email: null,
      address: null,
      tax_id: null,
      payment_terms_days: 14,
      updated_at: null,
    };
  return {
    workspace_id: workspaceId,
    configured: true,
    legal_name: p.legalName,
    email: p.email,
    address: {
      line1: p.addressLine1,
      line2: p.addressLine2,
      city: p.city,
      postal_code: p.postalCode,
      region: p.region,
      country: p.country,
    },
    tax_id: p.taxId,
    payment_terms_days: p.paymentTermsDays,
    updated_at: iso(p.updatedAt),
  };
}

export async function getProfile(workspaceId: string): Promise<TBillingProfile> {
  return toProfile(workspaceId, await scopedDb(workspaceId).billingProfile.findFirst());
}

export async function putProfile(
  caller: TCaller,
  workspaceId: string,
  input: TBillingProfileRequest,
): Promise<TBillingProfile> {
  const data = {
    legalName: input.legal_name,
    email: input.email,
    addressLine1: input.address.line1,
    addressLine2: input.address.line2 ?? null,
    city: input.address.city,
    postalCode: input.address.postal_code,
    region: input.address.region ?? null,
    country: input.address.country,
    taxId: input.tax_id ?? null,
    paymentTermsDays: input.payment_terms_days ?? 14,
    updatedBy: caller.userId,
  };
  return scopedDb(workspaceId).$transaction(async (tx) => {
    const before = await tx.billingProfile.findFirst();
    const now = new Date();
    const row = await tx.billingProfile.upsert({
      where: { workspaceId },
      create: { workspaceId, ...data, createdAt: now, updatedAt: now },
      update: { ...data, updatedAt: now },
    });
    // Names of the fields that changed, not their values (an address is personal data; the profile itself holds it).
    const changed = (Object.keys(data) as (keyof typeof data)[]).filter(
      (k) => k !== "updatedBy" && (!before || before[k] !== data[k]),
    );
    if (changed.length) {
      await writeAudit(tx, {
        workspaceId,
        actor: { kind: "user", id: caller.userId },
        action: "billing.profile_changed",
        target: { kind: "billing_profile", id: workspaceId },
        correlationId: caller.correlationId,
        details: { created: !before, changed_fields: changed },
      });
    }
    return toProfile(workspaceId, row);
  });
}
