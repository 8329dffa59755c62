import { forwardRef, type SelectHTMLAttributes } from "react";
import { cn } from "./cn";
import { inputClass } from "./input";

/** A native <select>: keyboard, screen reader and mobile behaviour for free. */
export const Select = forwardRef<HTMLSelectElement, SelectHTMLAttributes<HTMLSelectElement>>(function Select(
  { className, ...props },
  ref,
) {
  return <select ref={ref} className={cn(inputClass, "pr-8", className)} {...props} />;
});
