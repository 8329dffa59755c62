import type { HTMLAttributes, ReactNode } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";

/**
 * A card of one page section: its title (an h2), an optional description,
 * optional actions at the header's right, and its content. `flush` lets a
 * table or list run edge to edge; use TableCard for a list query's table.
 */
export function SectionCard({
  title,
  description,
  actions,
  flush = false,
  contentClassName,
  children,
  ...card
}: Omit<HTMLAttributes<HTMLDivElement>, "title"> & {
  title: ReactNode;
  description?: ReactNode;
  /** Buttons or links at the header's right. */
  actions?: ReactNode;
  /** Content without padding. */
  flush?: boolean;
  contentClassName?: string;
  children: ReactNode;
}) {
  const heading = (
    <>
      <CardTitle>{title}</CardTitle>
      {description ? <CardDescription>{description}</CardDescription> : null}
    </>
  );
  return (
    <Card {...card}>
      <CardHeader className={actions ? "flex-row flex-wrap items-start justify-between gap-2" : undefined}>
        {actions ? <div className="min-w-0 space-y-1">{heading}</div> : heading}
        {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
      </CardHeader>
      <CardContent className={cn(flush && "px-0 py-0", contentClassName)}>{children}</CardContent>
    </Card>
  );
}
