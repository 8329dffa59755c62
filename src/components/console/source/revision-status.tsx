import { Badge } from "@/components/ui/badge";
import type { TRevision } from "@/server/domain/source/source.contract";

type TDescriptorStatus = TRevision["descriptor_status"];

const DESCRIPTOR_STATUS: Record<
  TDescriptorStatus,
  { label: string; tone: "info" | "success" | "warning" | "danger" | "neutral" }
> = {
  pending: { label: "Freezing", tone: "info" },
  detected: { label: "Awaiting confirmation", tone: "warning" },
  confirmed: { label: "Confirmed", tone: "success" },
  unavailable: { label: "No descriptor", tone: "danger" },
};

export function DescriptorStatusBadge({ status }: { status: TDescriptorStatus }) {
  const s = DESCRIPTOR_STATUS[status];
  return <Badge tone={s.tone}>{s.label}</Badge>;
}

/** The contract column: rejected with its reason, ready once the descriptor is confirmed, otherwise not yet. */
export function ContractStatusBadge({ revision }: { revision: TRevision }) {
  if (revision.capability_contract?.status === "rejected") {
    return <Badge tone="danger">Rejected: {revision.capability_contract.reason}</Badge>;
  }
  if (revision.descriptor_status === "confirmed") return <Badge tone="success">Ready</Badge>;
  if (revision.descriptor_status === "detected") return <Badge>On confirmation</Badge>;
  return <span className="text-slate-600">—</span>;
}
