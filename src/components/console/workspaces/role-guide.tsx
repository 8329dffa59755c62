import { titleCase } from "../shared/format";

/** What each role may do: one place, shown under the member list (docs/decisions.md "Identity and tenancy"). */
export const ROLE_ABILITIES: Record<"owner" | "admin" | "developer" | "viewer", string> = {
  owner:
    "Everything an admin can do, plus granting or removing the owner role. A workspace always keeps at least one owner.",
  admin:
    "Manages members and invitations, plan and budgets, credentials and provider bindings, webhooks, service identities and domains; sees billing and secret-related audit records.",
  developer:
    "Adds products and source, confirms descriptors, proposes fixes, deploys and releases; reads usage and the audit trail (without billing and credential records).",
  viewer:
    "Reads the workspace: products, deployments, usage and the audit trail (without billing and credential records). Changes nothing.",
};

export function RoleGuide() {
  return (
    <section aria-labelledby="role-guide-title" className="rounded-md border border-slate-200 bg-white px-5 py-4">
      <h2 id="role-guide-title" className="text-sm font-semibold">
        What each role may do
      </h2>
      <dl className="mt-2 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[8rem_1fr]">
        {Object.entries(ROLE_ABILITIES).map(([role, text]) => (
          <div key={role} className="contents">
            <dt className="font-medium">{titleCase(role)}</dt>
            <dd className="text-slate-700">{text}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
