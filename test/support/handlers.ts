import http from "node:http";
import type { AddressInfo } from "node:net";
import { serveBridgeNode } from "@/server/bridge/node";
import { handleBridge as rawBridge } from "@/server/bridge/handler";
import { handleRunnerCapabilityCall as rawRunner } from "@/server/bridge/runner-handler";
import { handleEvidenceDownload as rawEvidence } from "@/server/http/evidence-handler";
import { handleInvoicePdf as rawInvoicePdf } from "@/server/http/invoice-pdf-handler";
import { handleOAuthToken as rawOAuthToken } from "@/server/http/oauth-token-handler";
import { handleRest as rawRest } from "@/server/http/rest-handler";
import { handleUpload as rawUpload } from "@/server/http/uploads-handler";
import { handleSurfaceRequest as rawSurface } from "@/server/http/surface-handler";
import { checked } from "./openapi-responses";
import { problemMismatch } from "./openapi-validator";

/**
 * The app's framework-free HTTP handlers, each answer checked against
 * /v1/openapi.json (./openapi-responses.ts). Tests import handlers from here,
 * never from src (eslint forbids it), so every response a test sees through
 * the HTTP layer is validated. Same signatures as the originals.
 */
export const handleBridge: typeof rawBridge = async (req, ...rest) =>
  checked(req.method, req.url, await rawBridge(req, ...rest));
export const handleRunnerCapabilityCall: typeof rawRunner = async (req, ...rest) =>
  checked(req.method, req.url, await rawRunner(req, ...rest));
export const handleEvidenceDownload: typeof rawEvidence = async (req, ...rest) =>
  checked(req.method, req.url, await rawEvidence(req, ...rest));
export const handleInvoicePdf: typeof rawInvoicePdf = async (req, ...rest) =>
  checked(req.method, req.url, await rawInvoicePdf(req, ...rest));
export const handleOAuthToken: typeof rawOAuthToken = async (req, ...rest) =>
  checked(req.method, req.url, await rawOAuthToken(req, ...rest));
export const handleUpload: typeof rawUpload = async (req, ...rest) =>
  checked(req.method, req.url, await rawUpload(req, ...rest));
export const handleRest: typeof rawRest = async (req) => checked(req.method, req.url, await rawRest(req));

/**
 * The surface proxy (`/s/{srf}/...` and surface hosts): a hosted app's own
 * answers are not the API, so only Capstan's refusals are checked: a
 * problem+json body must agree with the response's status and title.
 */
export const handleSurfaceRequest: typeof rawSurface = async (req, ...rest) => {
  const res = await rawSurface(req, ...rest);
  const mismatch = problemMismatch({
    method: req.method,
    path: req.url,
    status: res.status,
    headers: res.headers,
    text: await res.clone().text(),
  });
  if (mismatch) throw new Error(`The surface's problem document disagrees with its response: ${mismatch}`);
  return res;
};

const BRIDGE_PATH = /^\/v1\/capabilities\/([^/?#]+)\/([^/?#]+)$/;

/** Routes a Request as the Next.js app does (Bridge, token endpoint, runner, everything else under /v1), checked. */
export function route(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const bridge = BRIDGE_PATH.exec(pathname);
  if (bridge && request.method === "POST") return handleBridge(request, bridge[1]!, bridge[2]!);
  if (pathname === "/v1/oauth/token" && request.method === "POST") return handleOAuthToken(request);
  if (pathname === "/v1/runner/capability-invocations" && request.method === "POST")
    return handleRunnerCapabilityCall(request);
  return handleRest(request);
}

/** A fetch that answers in-process through route(): for clients (the generated one) under test. */
export const inProcessFetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> =>
  route(input instanceof Request && !init ? input : new Request(input, init));

/**
 * A loopback node:http server that hands Bridge calls to serveBridgeNode, as
 * the `npm start` server does (scripts/server.mjs); anything else is a 404.
 * Call it with checkedFetch (./openapi-responses.ts) so answers are validated.
 */
export async function startBridgeNodeServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const arrivedAt = performance.now();
    if (!serveBridgeNode(req, res, arrivedAt)) {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * GET /metrics: not a /v1 operation (Prometheus text, outside the API
 * document), so its answers are not checked against /v1/openapi.json.
 */
export { handleMetrics, startMetricsListener } from "@/server/http/metrics-handler";
