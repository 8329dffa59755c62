import { forwardRef, type InputHTMLAttributes } from "react";
import { cn, focusRing } from "./cn";

export const inputClass = cn(
  "block h-9 w-full rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900 shadow-xs",
  "placeholder:text-slate-500 disabled:cursor-not-allowed disabled:opacity-60 read-only:bg-slate-50",
  "aria-invalid:border-rose-600",
  focusRing,
);

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement>>(function Input(
  { className, type = "text", ...props },
  ref,
) {
  return <input ref={ref} type={type} className={cn(inputClass, className)} {...props} />;
});
