import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { processPendingFreezes } from "@/server/domain/source/freeze.service";
import { serveSurfaceNode } from "@/server/http/surface-node";
import { route } from "./handlers";
import { deploymentBridge } from "@/server/bridge/deployment-bridge";
import { provideDeploymentBridge } from "@/server/domain/deployments/lifecycle";

provideDeploymentBridge(deploymentBridge);

/**
 * A real loopback HTTP server in the test's process for clients that run as
 * their own process (the `capstan` CLI): /v1 through the same checked
 * handlers as every integration test, surface traffic through the
 * production fast path, and the freeze and deploy workers ticking in the
 * background as `npm start` runs them.
 */
export async function startCliServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (serveSurfaceNode(req, res, () => void serve(req, res))) return;
    void serve(req, res);
  });
  const origin = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const serve = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    try {
      const method = (req.method ?? "GET").toUpperCase();
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers))
        for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, one);
      const hasBody = method !== "GET" && method !== "HEAD";
      const response = await route(
        new Request(origin() + (req.url ?? "/"), {
          method,
          headers,
          body: hasBody ? (Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>) : undefined,
          ...(hasBody ? { duplex: "half" } : {}),
        }),
      );
      const out: Record<string, string> = {};
      response.headers.forEach((value, key) => (out[key] = value));
      res.writeHead(response.status, out);
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String((err as Error)?.stack ?? err));
    }
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  let running = true;
  const pump = (async () => {
    while (running) {
      const n = (await processPendingFreezes(5).catch(() => 0)) + (await processPlannedDeployments(5).catch(() => 0));
      if (n === 0) await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    url: origin(),
    close: async () => {
      running = false;
      await pump;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
