import Link from "next/link";
import { PageHeader } from "./page-header";

/**
 * A console URL that names nothing: said in words, with the navigation still
 * around it. The console's not-found page, and the state a detail page shows
 * when its id is unknown or belongs to another workspace (the API's 404).
 */
export function NotFoundState() {
  return (
    <>
      <PageHeader
        title="Page not found"
        description="Nothing in the console lives at this address. It may have been moved, or the link may be mistyped."
      />
      <p className="text-sm text-slate-700">
        Go to{" "}
        <Link href="/console" className="font-medium text-sky-800 underline underline-offset-2">
          all workspaces
        </Link>{" "}
        or pick an area in the navigation.
      </p>
    </>
  );
}
