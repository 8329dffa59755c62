import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { hostHandle } from "@/server/domain/runners/runner-hosts-admin.service";
import { heartbeat, localHostId } from "@/server/domain/runners/runner-hosts.service";
import { db } from "@/server/platform/db/client";
import { runner } from "@/server/runtime";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, HEALTH_EDIT, must } from "./support/deploy-fixtures";

/**
 * Runner hosts for operators (issue #35 item 4): GET /v1/platform/runner-hosts
 * and :cordon / :uncordon for ws_platform owners and admins only (anyone else
 * 403, unknown 404, malformed 422), audited once per change; a cordoned host
 * places nothing (its planned deployment waits) and places again once
 * uncordoned; each deployment names its host. This test process is a runner
 * host (it places); another host is a row.
 */
let platformToken: string;
let owner: TTestUser;
let ws: string;
let app: { productId: string; revisionId: string };
const other = `fake-admin-${Math.random().toString(36).slice(2, 8)}:/nowhere`;
const hosts = () => api("GET", "/v1/platform/runner-hosts", { token: platformToken });
const act = (handle: string, op: "cordon" | "uncordon", token = platformToken) =>
  api("POST", `/v1/platform/runner-hosts/${handle}:${op}`, { token });

beforeAll(async () => {
  await bootBridgeApp();
  platformToken = await issueTokenForEmail("admin@example.com", 3600);
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
  await heartbeat();
  await db().runnerHost.create({
    data: {
      id: other,
      endpoint: "http://127.0.0.1:9",
      capacity: 3,
      leaseExpiresAt: new Date(Date.now() + 600_000),
      sandbox: "gvisor",
    },
  });
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
});

describe("GET /v1/platform/runner-hosts", () => {
  it("lists every host with capacity, load, state, heartbeat and sandbox, for platform admins only", async () => {
    const r = await hosts();
    expect(r.status, r.text).toBe(200);
    const mine = r.json.items.find((h: { name: string }) => h.name === localHostId());
    expect(mine).toMatchObject({ id: hostHandle(localHostId()), state: "live", load: 0, cordoned_at: null });
    expect(mine.sandbox).toMatch(/^(gvisor|bubblewrap|none)$/);
    expect(Date.parse(mine.last_heartbeat_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(r.json.items.find((h: { name: string }) => h.name === other)).toMatchObject({
      id: hostHandle(other),
      capacity: 3,
      load: 0,
      state: "live",
      sandbox: "gvisor",
      endpoint: "http://127.0.0.1:9",
    });

    // A workspace owner is not a platform admin: neither the list nor a cordon.
    expect((await api("GET", "/v1/platform/runner-hosts", { token: owner.token })).status).toBe(403);
    expect((await act(hostHandle(other), "cordon", owner.token)).status).toBe(403);
    expect((await api("GET", "/v1/platform/runner-hosts")).status).toBe(401);
    expect((await db().runnerHost.findUniqueOrThrow({ where: { id: other } })).cordonedAt).toBeNull();
    expect((await act("rh_00000000000000000000", "cordon")).status).toBe(404);
    expect((await act("not-a-host", "cordon")).status, "a malformed path id").toBe(400);
  });
});

describe("cordon", () => {
  it("a cordoned host places nothing and keeps its state; uncordoned it places again; each change audited once", async () => {
    const me = hostHandle(localHostId());
    const c1 = await act(me, "cordon");
    expect(c1.status, c1.text).toBe(200);
    expect(c1.json).toMatchObject({ id: me, state: "cordoned" });
    expect(c1.json.cordoned_at).not.toBeNull();
    expect((await act(me, "cordon")).json.cordoned_at, "idempotent: the first cordon's time").toBe(c1.json.cordoned_at);
    // A heartbeat keeps the cordon (the host re-registers without lifting it).
    await heartbeat();
    expect((await hosts()).json.items.find((h: { id: string }) => h.id === me).state).toBe("cordoned");

    const d = must(
      await api("POST", `/v1/workspaces/${ws}/revisions/${app.revisionId}/deployments`, {
        token: owner.token,
        body: { environment_type: "preview", slot: "cordon" },
      }),
      202,
      "plan",
    );
    expect(await processPlannedDeployments(5)).toBe(0);
    expect(
      must(await api("GET", `/v1/workspaces/${ws}/deployments/${d.id}`, { token: owner.token }), 200, "d").status,
    ).toBe("planned");

    expect((await act(me, "uncordon")).json).toMatchObject({ state: "live", cordoned_at: null });
    expect(await processPlannedDeployments(5)).toBe(1);
    const placed = must(await api("GET", `/v1/workspaces/${ws}/deployments/${d.id}`, { token: owner.token }), 200, "d");
    expect(placed.status).toBe("active");
    expect(placed.runner_host, "the deployment names its host").toBe(localHostId());
    expect((await hosts()).json.items.find((h: { id: string }) => h.id === me).load).toBe(1);

    const audits = await db().auditRecord.findMany({
      where: { workspaceId: "ws_platform", targetId: me },
      orderBy: { seq: "asc" },
    });
    expect(audits.map((a) => a.action)).toEqual(["runner_host.cordoned", "runner_host.uncordoned"]);
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${d.id}:stop`, { token: owner.token }), 200, "stop");
  }, 120_000);
});
