import { cva, type VariantProps } from "class-variance-authority";
import { CircleAlert, Info, TriangleAlert } from "lucide-react";
import type { ReactNode } from "react";
import type { TProblemView } from "@/lib/trpc/client";
import { cn } from "./cn";

const alertVariants = cva(
  "flex gap-3 rounded-md border px-4 py-3 text-sm [&>svg]:mt-0.5 [&>svg]:size-4 [&>svg]:shrink-0",
  {
    variants: {
      tone: {
        info: "border-sky-200 bg-sky-50 text-sky-900",
        warning: "border-amber-300 bg-amber-50 text-amber-900",
        danger: "border-rose-300 bg-rose-50 text-rose-900",
        success: "border-emerald-200 bg-emerald-50 text-emerald-900",
      },
    },
    defaultVariants: { tone: "info" },
  },
);

type TAlertProps = VariantProps<typeof alertVariants> & {
  title?: ReactNode;
  /** A problem document (RFC 9457) to show: its detail, then each field error. */
  problem?: TProblemView | null;
  children?: ReactNode;
  className?: string;
};

/**
 * A message block. Errors (tone danger, or any `problem`) are announced with
 * role="alert"; the rest with role="status" so they do not interrupt.
 */
export function Alert({ tone, title, problem, children, className }: TAlertProps) {
  const effectiveTone = problem ? (tone ?? "danger") : tone;
  const Icon = effectiveTone === "danger" ? CircleAlert : effectiveTone === "warning" ? TriangleAlert : Info;
  const heading = title ?? problem?.title;
  return (
    <div
      role={effectiveTone === "danger" ? "alert" : "status"}
      className={cn(alertVariants({ tone: effectiveTone }), className)}
    >
      <Icon aria-hidden="true" />
      <div className="min-w-0 space-y-1">
        {heading ? <p className="font-semibold">{heading}</p> : null}
        {problem ? <p>{problem.detail}</p> : null}
        {problem?.errors?.length ? (
          <ul className="list-disc space-y-0.5 pl-5">
            {problem.errors.map((e, i) => (
              <li key={`${e.path}-${i}`}>
                <code className="font-mono text-xs">{e.path}</code>: {e.message}
              </li>
            ))}
          </ul>
        ) : null}
        {children}
        {problem?.correlation_id ? (
          <p className="text-xs opacity-75">
            Correlation id: <code className="font-mono">{problem.correlation_id}</code>
          </p>
        ) : null}
      </div>
    </div>
  );
}
