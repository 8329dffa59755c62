import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerMalformedPath, pathDecodes } from "../scripts/malformed-path.mjs";
import { expectShape, Problem } from "./support/spec-schemas";

/**
 * Issue #15 item 2: Next.js answers a bare 500 to a path with malformed
 * percent-encoding (measured on the production build: GET /v1/workspaces/%ZZ,
 * POST /v1/capabilities/%ZZ/get -> 500 text/plain). The production server
 * (scripts/server.mjs) answers such paths itself, before Next.js, with a 400
 * problem; tested here on a real HTTP server with the same guard in front.
 */
let server: http.Server;
let base: string;
let reachedNext = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (answerMalformedPath(req, res)) return;
    reachedNext++;
    res.writeHead(200).end("next");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("malformed percent-encoding in the path", () => {
  for (const path of [
    "/v1/workspaces/%ZZ",
    "/v1/workspaces/%E0%A4%A",
    "/v1/%C0%AF/x",
    "/v1/workspaces/ws_x/members/%ED%A0%80",
    "/v1/capabilities/%ZZ/get",
    "/%",
  ]) {
    it(`${path} is a 400 problem, never reaching Next.js`, async () => {
      const before = reachedNext;
      const res = await fetch(base + path + "?q=%ZZ", { method: "POST", body: "{}" });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      const p = expectShape(Problem, await res.json());
      expect(p.reason).toBe("malformed_path");
      expect(p.correlation_id).toBe(res.headers.get("x-correlation-id"));
      expect(reachedNext).toBe(before);
    });
  }

  it("valid paths (escapes included, a malformed query is not the path's business) pass through", async () => {
    for (const path of ["/v1/workspaces", "/v1/workspaces/ws_1%2Fx", "/s/srf_x/%F0%9F%98%80", "/v1/x?q=%ZZ"]) {
      expect(pathDecodes(path)).toBe(true);
      expect((await fetch(base + path)).status).toBe(200);
    }
  });
});
