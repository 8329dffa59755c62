export const dynamic = "force-dynamic";

/** Liveness: answers while the process runs, whatever the database does. */
export function GET(): Response {
  return Response.json({ status: "ok" });
}
