import { getDb } from "@/server/platform/db/client";
import { AppError, problemResponse } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { isDraining } from "@/server/platform/lifecycle";

const TIMEOUT_MS = 2000;

/** Readiness: 200 {status:"ready"} only when the database answers a query in time; 503 from the moment a graceful stop began. */
export async function readiness(): Promise<Response> {
  if (isDraining()) {
    return problemResponse(
      new AppError("unavailable", "The server is shutting down", {
        reason: "shutting_down",
        headers: { "retry-after": "1" },
      }),
      {
        instance: "/readyz",
        correlationId: newId("evt"),
      },
    );
  }
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
    return problemResponse(
      new AppError("unavailable", "The database is not reachable yet", {
        reason: "database_unavailable",
        headers: { "retry-after": "1" },
      }),
      {
        instance: "/readyz",
        correlationId: newId("evt"),
      },
    );
  }
}
