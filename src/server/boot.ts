import { dbKind, getDb } from "@/server/platform/db/client";
import { startOperatorSocket } from "@/server/platform/operator-socket";
import { describeKeys, rotateAndDescribe } from "@/server/domain/signing-keys/operator-report";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { newId } from "@/server/platform/ids";
import { ensureSigningKey } from "@/server/domain/signing-keys/jwt.service";
import { logger } from "@/server/platform/logger";
import { bootstrapPlatform } from "@/server/domain/identity/users.service";
import { roles } from "@/server/platform/roles";
import { startRoles } from "@/server/workers/roles";
import { serveSurfaceNode } from "@/server/http/surface-node";
import { serveRestNode } from "./http/rest-node";
import { serveBridgeNode } from "@/server/bridge/node";
import { deploymentBridge } from "@/server/bridge/deployment-bridge";
import { provideDeploymentBridge } from "@/server/domain/deployments/lifecycle";
import { recoverInFlight } from "@/server/domain/usage/leases.service";
import { registerShutdown } from "@/server/shutdown";
import { startMetricsListener } from "@/server/http/metrics-handler";
import { closeMonthReport } from "@/server/domain/billing/month-close.service";

/**
 * Process start: open (and migrate) the database, make sure a signing key and
 * the platform workspace exist, then start this process's other roles
 * (CAPSTAN_ROLES; by default worker and runner too, unless CAPSTAN_WORKERS=0).
 */
export async function boot(): Promise<void> {
  const started = Date.now();
  // The composition root: the domain applies deployments, the Bridge they call is handed in (the domain never imports it).
  provideDeploymentBridge(deploymentBridge);
  await getDb();
  await ensureSigningKey();
  await bootstrapPlatform(newId("evt"));
  // In-flight journals of processes that died (kill -9, crash) are charged before serving.
  const recovered = await recoverInFlight();
  if (recovered) logger.warn("boot.recovered_reservations", { charged: recovered });
  registerShutdown();
  await startMetricsListener();
  if (dbKind() === "pglite") {
    startOperatorSocket(async (req) =>
      req.cmd === "token"
        ? { ok: true, token: await issueTokenForEmail(req.email, req.ttl_seconds, req.name) }
        : req.cmd === "rotate-signing-key"
          ? { ok: true, output: await rotateAndDescribe({ emergency: req.emergency === true, reason: req.reason }) }
          : req.cmd === "signing-keys"
            ? { ok: true, output: await describeKeys() }
            : req.cmd === "billing-close"
              ? { ok: true, output: await closeMonthReport(req.month, req.workspace_id) }
              : { ok: false, error: "unknown command" },
    );
  }
  // The custom server (scripts/server.mjs) sends surface traffic here before Next.js routing.
  (globalThis as { __capstanSurfaceNode?: typeof serveSurfaceNode }).__capstanSurfaceNode = serveSurfaceNode;
  // ... and Bridge calls (POST /v1/capabilities/...) to the same Bridge handler the Next.js route uses, on Node's objects.
  (globalThis as { __capstanBridgeNode?: typeof serveBridgeNode }).__capstanBridgeNode = serveBridgeNode;
  // ... and the invocation hot path (POST /v1/sessions/{ses}/invocations) to the same REST handler as the Next.js route.
  (globalThis as { __capstanRestNode?: typeof serveRestNode }).__capstanRestNode = serveRestNode;
  await startRoles(roles("server"));

  logger.info("boot.ready", { ms: Date.now() - started });
}
