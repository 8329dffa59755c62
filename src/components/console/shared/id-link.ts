import { buttonVariants } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";

/** An id that links to its page: a text link, aligned with the table's other cells. */
export const idLinkClass = cn(buttonVariants({ variant: "link" }), "h-auto px-0 font-mono text-xs");
