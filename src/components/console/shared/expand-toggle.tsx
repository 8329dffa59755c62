"use client";

import { ChevronDown, ChevronRight } from "lucide-react";
import { Button } from "@/components/ui/button";

/** The chevron that opens a table row onto its details (`controls` is the details row's id, present while open). */
export function ExpandToggle({
  expanded,
  controls,
  what,
  onToggle,
}: {
  expanded: boolean;
  controls: string;
  /** Completes "Show details of …" / "Hide details of …". */
  what: string;
  onToggle: () => void;
}) {
  return (
    <Button
      variant="ghost"
      size="icon"
      aria-expanded={expanded}
      aria-controls={expanded ? controls : undefined}
      aria-label={`${expanded ? "Hide" : "Show"} details of ${what}`}
      onClick={onToggle}
    >
      {expanded ? <ChevronDown aria-hidden="true" /> : <ChevronRight aria-hidden="true" />}
    </Button>
  );
}
