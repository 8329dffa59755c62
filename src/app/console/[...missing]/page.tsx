import { notFound } from "next/navigation";

/** Any console URL no page answers: the console's own 404 (console/not-found.tsx), inside the console. */
export default function MissingConsolePage(): never {
  notFound();
}
