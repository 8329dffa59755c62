import { dbKind, getDb } from "@/server/platform/db/client";
import { startOperatorSocket } from "@/server/platform/operator-socket";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { env } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { ensureSigningKey } from "@/server/platform/jwt";
import { logger } from "@/server/platform/logger";
import { bootstrapPlatform } from "@/server/domain/identity/users.service";
import { startWorkers } from "@/server/workers/run";

/**
 * Process start: open (and migrate) the database, make sure a signing key and
 * the platform workspace exist, then start background workers unless
 * CAPSTAN_WORKERS=0 (run them with `npm run worker` instead).
 */
export async function boot(): Promise<void> {
  const started = Date.now();
  await getDb();
  await ensureSigningKey();
  await bootstrapPlatform(newId("evt"));
  if (dbKind() === "pglite") {
    startOperatorSocket(async (req) =>
      req.cmd === "token"
        ? { ok: true, token: await issueTokenForEmail(req.email, req.ttl_seconds, req.name) }
        : { ok: false, error: "unknown command" },
    );
  }
  if (env().CAPSTAN_WORKERS) startWorkers();
  logger.info("boot.ready", { ms: Date.now() - started });
}
