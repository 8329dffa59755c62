import { getDb } from "@/server/platform/db/client";
import { AppError, problemResponse } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";

const TIMEOUT_MS = 2000;

/** Readiness: 200 {status:"ready"} only when the database answers a query in time. */
export async function readiness(): Promise<Response> {
  try {
    await Promise.race([
      (async () => {
        const client = await getDb();
        await client.$queryRaw`SELECT 1`;
      })(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("database timeout")), TIMEOUT_MS)),
    ]);
    return Response.json({ status: "ready" });
  } catch {
    return problemResponse(new AppError("unavailable", "The database is not reachable yet", { reason: "database_unavailable", headers: { "retry-after": "1" } }), {
      instance: "/readyz",
      correlationId: newId("evt"),
    });
  }
}
