import { cva, type VariantProps } from "class-variance-authority";
import type { HTMLAttributes } from "react";
import { cn } from "./cn";

const badgeVariants = cva("inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset", {
  variants: {
    tone: {
      neutral: "bg-slate-100 text-slate-700 ring-slate-200",
      info: "bg-sky-50 text-sky-800 ring-sky-200",
      success: "bg-emerald-50 text-emerald-800 ring-emerald-200",
      warning: "bg-amber-50 text-amber-800 ring-amber-200",
      danger: "bg-rose-50 text-rose-800 ring-rose-200",
    },
  },
  defaultVariants: { tone: "neutral" },
});

export function Badge({
  className,
  tone,
  ...props
}: HTMLAttributes<HTMLSpanElement> & VariantProps<typeof badgeVariants>) {
  return <span className={cn(badgeVariants({ tone }), className)} {...props} />;
}
