import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveSurfaceNode } from "@/server/http/surface-node";
import { api, bootApp, makeUser } from "./support/api";

/**
 * The custom server's surface fast path takes raw Node requests: hostile
 * request lines and Host headers must get an answer and never take the
 * process down.
 */
let server: http.Server;
let port = 0;

beforeAll(async () => {
  await bootApp();
  server = http.createServer((req, res) => {
    if (!serveSurfaceNode(req, res)) {
      res.writeHead(299);
      res.end("next.js");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1", () => s.write(request));
    let out = "";
    s.on("data", (c) => (out += c.toString()));
    s.on("end", () => resolve(out));
    s.on("error", reject);
  });
}

describe("surface fast path", () => {
  it("answers hostile input with a problem and keeps serving", async () => {
    const badEscape = await raw("GET /s/%E0%A4%A/x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    expect(badEscape, "bad escape").toMatch(/^HTTP\/1\.1 404/);
    expect(badEscape).toContain("application/problem+json");
    const badHost = await raw(
      "GET /s/srf_01jh0000000000000000000000/ HTTP/1.1\r\nHost: bad_host:99999\r\nConnection: close\r\n\r\n",
    );
    expect(badHost, "bad host").toMatch(/^HTTP\/1\.1 404/);
    const unknownByHost = await raw(
      "GET / HTTP/1.1\r\nHost: srf-01jh0000000000000000000000.localhost:3000\r\nAccept: text/html\r\nConnection: close\r\n\r\n",
    );
    expect(unknownByHost, "by host").toMatch(/^HTTP\/1\.1 404/);
    expect(unknownByHost).toContain("No such surface");
    // Anything else is Next.js's.
    expect(await raw("GET /console HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")).toMatch(
      /^HTTP\/1\.1 299/,
    );
  });

  it("raw REST routes answer a malformed escape with 400, not a throw", async () => {
    const owner = await makeUser();
    const r = await api("POST", "/v1/workspaces/%E0%A4%A/uploads", { token: owner.token, rawBody: "x" });
    expect(r.status).toBe(400);
    expect(r.headers.get("content-type")).toBe("application/problem+json");
  });
});
