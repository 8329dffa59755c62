import type { TBridgeDeployment } from "@/server/domain/deployments/lifecycle";
import { AppError, problemResponse } from "@/server/platform/errors";
import { newId } from "@/server/platform/ids";
import { handleBridge } from "./handler";
import { handleRunnerCapabilityCall } from "./runner-handler";

const BRIDGE_PATH = /^\/v1\/capabilities\/([^/?#]+)\/([^/?#]+)$/;

/**
 * The Bridge as a deployment's app sees it (served on its Bridge socket):
 * the caller is the deployment itself, its contract is the deployed
 * revision's, and nothing but the Bridge is reachable.
 */
export function deploymentBridge(dep: TBridgeDeployment): (req: Request) => Promise<Response> {
  return (req: Request): Promise<Response> => {
    const pathname = new URL(req.url).pathname;
    if (pathname === "/v1/runner/capability-invocations" && req.method === "POST")
      return handleRunnerCapabilityCall(req, { deploymentId: dep.id });
    const m = BRIDGE_PATH.exec(pathname);
    if (!m || req.method !== "POST") {
      return Promise.resolve(
        problemResponse(
          new AppError(
            "not_found",
            "Only POST /v1/capabilities/{capability}/{action} and POST /v1/runner/capability-invocations are reachable from a hosted app",
          ),
          {
            instance: new URL(req.url).pathname,
            correlationId: newId("evt"),
          },
        ),
      );
    }
    // Capability and action names are URL-safe: an escaped one is simply unknown (404), never a throw.
    return handleBridge(req, m[1]!, m[2]!, {
      principal: {
        principalId: dep.id,
        kind: "deployment",
        caller: {
          serviceIdentityId: null,
          deploymentId: dep.id,
          revisionId: dep.revisionId,
          workspaceId: dep.workspaceId,
          productId: dep.productId,
          environmentType: dep.environmentType,
          permissions: null,
        },
      },
    });
  };
}
