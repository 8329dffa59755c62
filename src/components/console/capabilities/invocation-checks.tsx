import { CheckCircle2, CircleDashed, CircleMinus, CircleSlash, XCircle } from "lucide-react";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { TInvocation } from "./invocation-parts";
import { checksOf, type TCheckState } from "./invocation-reasons";

const CHECK_STATE: Record<
  TCheckState,
  { label: string; tone: "success" | "danger" | "neutral" | "info"; icon: ReactNode }
> = {
  passed: {
    label: "Passed",
    tone: "success",
    icon: <CheckCircle2 aria-hidden="true" className="size-4 text-emerald-700" />,
  },
  failed: {
    label: "Failed: decided the call",
    tone: "danger",
    icon: <XCircle aria-hidden="true" className="size-4 text-rose-700" />,
  },
  not_reached: {
    label: "Not reached",
    tone: "neutral",
    icon: <CircleSlash aria-hidden="true" className="size-4 text-slate-500" />,
  },
  not_needed: {
    label: "Not needed (served by the platform)",
    tone: "neutral",
    icon: <CircleMinus aria-hidden="true" className="size-4 text-slate-500" />,
  },
  unknown: {
    label: "Not decided yet",
    tone: "info",
    icon: <CircleDashed aria-hidden="true" className="size-4 text-sky-700" />,
  },
};

/** The Bridge's decision steps, each passed, failed, not reached or not needed. */
export function InvocationChecks({ r }: { r: TInvocation }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Checks</CardTitle>
        <CardDescription>
          The Bridge's decision steps in the order it runs them; the first that fails decides the call.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <ol aria-label="Checks" className="space-y-3">
          {checksOf(r).map((c) => {
            const s = CHECK_STATE[c.state];
            return (
              <li key={c.name} className="flex items-start gap-3">
                <span className="mt-0.5">{s.icon}</span>
                <span className="min-w-0 space-y-0.5">
                  <span className="flex flex-wrap items-center gap-2">
                    <span className="font-medium text-slate-900">{c.name}</span>
                    <Badge tone={s.tone}>{s.label}</Badge>
                  </span>
                  <span className="block text-xs text-slate-600">{c.what}</span>
                </span>
              </li>
            );
          })}
        </ol>
      </CardContent>
    </Card>
  );
}
