import { NotFoundState } from "@/components/console/shared/not-found-state";

/** A console URL that names nothing: said in words, with the navigation still around it. */
export default function ConsoleNotFound() {
  return <NotFoundState />;
}
