"use client";

import { Check, Copy } from "lucide-react";
import { useEffect, useState } from "react";
import { Button, type TButtonProps } from "./button";

type TCopyState = "idle" | "copied" | "failed";

/** Copies `value` to the clipboard and says so visibly (and to screen readers) for two seconds. */
export function CopyButton({
  value,
  label = "Copy",
  ...props
}: Omit<TButtonProps, "onClick" | "value"> & { value: string; label?: string }) {
  const [state, setState] = useState<TCopyState>("idle");

  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(t);
  }, [state]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
    } catch {
      setState("failed");
    }
  }

  return (
    <Button variant="secondary" onClick={() => void copy()} {...props}>
      {state === "copied" ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
      <span aria-live="polite">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed: select and copy" : label}
      </span>
    </Button>
  );
}
