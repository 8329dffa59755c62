import Link from "next/link";
import { workspaceHref } from "../shell/nav-config";

/** After a reason's words: a space and the link to the page that fixes it, when there is one. */
export function ReasonFixLink({
  ws,
  fix,
  className,
}: {
  ws: string;
  fix?: { path: string; label: string };
  className: string;
}) {
  return fix ? (
    <>
      {" "}
      <Link href={workspaceHref(ws, fix.path)} className={className}>
        {fix.label}
      </Link>
    </>
  ) : null;
}
