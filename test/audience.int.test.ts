import http from "node:http";
import type net from "node:net";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { processDomainChecks } from "@/server/domain/domains/verification.service";
import { processReleaseWindows } from "@/server/domain/releases/release-window.service";
import { authSecret } from "@/server/auth/options";
import { serveSurfaceNode } from "@/server/http/surface-node";
import { resetEnvCache } from "@/server/platform/env";
import { runner } from "@/server/runtime";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, HEALTH_EDIT, must } from "./support/deploy-fixtures";
import { startDnsServer, type TDnsServer } from "./support/dns-server";
import { evaluate } from "./support/release-fixtures";

/**
 * A release's audience, enforced on every route that reaches it (issue #32
 * item 3): the path route (console session cookie or bearer token), the host
 * route, a verified custom domain and session admission, each audience
 * against each route, through the custom server's fast path in front of the
 * real fixture app.
 */
const TARGET = "edge.capstan.test";
let dns: TDnsServer;
let owner: TTestUser;
let developer: TTestUser;
let viewer: TTestUser;
let stranger: TTestUser;
let ws: string;
let app: { productId: string; revisionId: string };
let versionId: string;
let host = "";
let server: http.Server;
let port = 0;

beforeAll(async () => {
  dns = await startDnsServer();
  process.env.CAPSTAN_DNS_SERVERS = dns.address;
  process.env.CAPSTAN_DNS_TIMEOUT_MS = "300";
  process.env.CAPSTAN_DOMAIN_CNAME_TARGET = TARGET;
  resetEnvCache();
  await bootBridgeApp();
  [owner, developer, viewer, stranger] = await Promise.all([makeUser(), makeUser(), makeUser(), makeUser()]);
  ws = (await makeWorkspace(owner.token)).id;
  await makeWorkspace(stranger.token);
  for (const [u, role] of [
    [developer, "developer"],
    [viewer, "viewer"],
  ] as const) {
    must(
      await api("PUT", `/v1/workspaces/${ws}/members/${u.userId}`, { token: owner.token, body: { role } }),
      200,
      "member",
    );
  }
  app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
  versionId = (await evaluate(owner, ws, app.revisionId)).version_id;
  // A verified custom domain for the product's staging environment.
  host = `aud-${Date.now().toString(36)}.example.com`;
  const d = must(
    await api("POST", `/v1/workspaces/${ws}/domains`, {
      token: owner.token,
      body: { product_id: app.productId, environment_type: "staging", hostname: host },
    }),
    201,
    "domain",
  );
  dns.zone.set(`_capstan-challenge.${host}`, { TXT: [d.verification_record.value] });
  dns.zone.set(host, { CNAME: TARGET });
  while ((await processDomainChecks(10)) > 0) {
    /* until done */
  }
  server = http.createServer((req, res) => {
    if (
      !serveSurfaceNode(req, res, () => {
        res.writeHead(299);
        res.end("next.js");
      })
    ) {
      res.writeHead(299);
      res.end("next.js");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
}, 180_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await dns.close();
  await runner().sweep(async () => new Set());
});

function get(hostHeader: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, headers: { host: hostHeader, accept: "application/json", ...headers } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** The console's session cookie for a user, as next-auth writes it. */
const cookieOf = async (u: TTestUser) =>
  `next-auth.session-token=${await encode({ token: { uid: u.userId, sub: u.userId }, secret: authSecret() })}`;

async function liveRelease(kind: string) {
  const post = (p: string, body: unknown) => api("POST", `/v1/workspaces/${ws}${p}`, { token: owner.token, body });
  const rel = must(
    await post("/releases", {
      product_id: app.productId,
      version_id: versionId,
      channel: "staged",
      audience: { kind },
      window: { starts_at: new Date(Date.now() - 1000).toISOString(), ends_at: null },
    }),
    201,
    "release",
  );
  const dep = must(await post(`/releases/${rel.id}/deployments`, {}), 202, "deploy").deployment;
  const until = Date.now() + 60_000;
  for (;;) {
    await processPlannedDeployments(5);
    await processReleaseWindows();
    const r = must(await api("GET", `/v1/workspaces/${ws}/releases/${rel.id}`, { token: owner.token }), 200, "release");
    if (r.status === "live") break;
    if (Date.now() > until) throw new Error(`release still ${r.status}`);
    await new Promise((res) => setTimeout(res, 20));
  }
  return must(
    await api("GET", `/v1/workspaces/${ws}/deployments/${dep.id}`, { token: owner.token }),
    200,
    "deployment",
  );
}

async function admission(u: TTestUser, surfaceId: string) {
  const ses = must(
    await api("POST", "/v1/sessions", { token: u.token, body: { surface_id: surfaceId } }),
    201,
    "session",
  );
  const inv = must(
    await api("POST", `/v1/sessions/${ses.id}/invocations`, {
      token: u.token,
      body: { kind: "http_request", method: "GET", path: "/echo", body_evidence: null },
    }),
    201,
    "invoke",
  );
  return inv.admission.outcome as string;
}

describe("each audience against each route", () => {
  // Expected answers: path route (anonymous, viewer's console session, developer's session, a stranger's token),
  // host route (anonymous, developer's token), the custom domain (anonymous, even with a member's cookie), sessions (viewer, developer).
  const matrix = {
    internal: {
      path: [401, 403, 200, 403],
      hostRoute: [401, 200],
      custom: [403, 403],
      sessions: ["denied", "admitted"],
    },
    workspace: {
      path: [401, 200, 200, 403],
      hostRoute: [401, 200],
      custom: [403, 403],
      sessions: ["admitted", "admitted"],
    },
    custom: {
      path: [200, 200, 200, 200],
      hostRoute: [200, 200],
      custom: [200, 200],
      sessions: ["admitted", "admitted"],
    },
  } as const;

  for (const [kind, want] of Object.entries(matrix)) {
    it(`${kind}: path route, host route, custom domain and session admission`, async () => {
      const dep = await liveRelease(kind);
      const srf = must(
        await api("GET", `/v1/workspaces/${ws}/surfaces/${dep.surface_id}`, { token: owner.token }),
        200,
        "surface",
      );
      const own = `127.0.0.1:${port}`;
      const path = `/s/${dep.surface_id}/echo`;
      expect(
        [
          await get(own, path),
          await get(own, path, { cookie: await cookieOf(viewer) }),
          await get(own, path, { cookie: await cookieOf(developer) }),
          await get(own, path, { authorization: `Bearer ${stranger.token}` }),
        ],
        "path route",
      ).toEqual(want.path);
      const surfaceHost = new URL(srf.url).host;
      expect(
        [
          await get(surfaceHost, "/echo"),
          await get(surfaceHost, "/echo", { authorization: `Bearer ${developer.token}` }),
        ],
        "host route",
      ).toEqual(want.hostRoute);
      // The custom domain is the app's own origin: Capstan's cookie and token are the app's there, never proof of membership.
      expect(
        [await get(host, "/echo"), await get(host, "/echo", { cookie: await cookieOf(owner) })],
        "custom domain",
      ).toEqual(want.custom);
      expect([await admission(viewer, dep.surface_id), await admission(developer, dep.surface_id)], "sessions").toEqual(
        want.sessions,
      );
    }, 120_000);
  }

  it("a refusal says whom the release is for, as a problem or a page", async () => {
    const dep2 = await liveRelease("internal");
    const res = await fetchVia(`/s/${dep2.surface_id}/`, "application/json");
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ status: 401, code: "unauthenticated", reason: "audience_sign_in" });
    expect(res.body.detail).toContain("people who build the product");
    const page = await fetchVia(`/s/${dep2.surface_id}/`, "text/html");
    expect(page.status).toBe(401);
    expect(page.text).toContain("Sign in to open this release");
  }, 120_000);
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function fetchVia(path: string, accept: string): Promise<{ status: number; text: string; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, headers: { host: `127.0.0.1:${port}`, accept } },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => {
          let body = null;
          try {
            body = JSON.parse(text);
          } catch {
            /* a page */
          }
          resolve({ status: res.statusCode ?? 0, text, body });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}
