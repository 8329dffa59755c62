import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleSurfaceRequest } from "@/server/domain/deployments/surfaces.service";
import { db } from "@/server/platform/db/client";
import { runner, type TRuntimeState } from "@/server/runtime";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";

let owner: TTestUser;
let ws: string;

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
});

afterAll(async () => {
  // Nothing this file started may outlive it.
  await runner().sweep(async () => new Set());
});

const surfaceGet = (srf: string, path: string, init: RequestInit = {}) =>
  handleSurfaceRequest(new Request(`http://localhost:3000/s/${srf}${path}`, init), srf);

describe("deploying a revision to preview", () => {
  it("runs the app, gives it a surface that answers, and lets it call data.kv through the Bridge", async () => {
    const app = await confirmedApp(owner, ws, {}, HEALTH_EDIT);
    const dep = await deploy(owner, ws, app.revisionId);
    expect(dep.status, JSON.stringify(dep.findings)).toBe("active");
    expect(dep.surface_id).toMatch(/^srf_/);
    const res = await surfaceGet(dep.surface_id, "/hello");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("hello from the app at /hello");
    const hits = await surfaceGet(dep.surface_id, "/hits");
    expect(await hits.json()).toMatchObject({ bridge_status: 200, value: 1 });
    const state = (await db().deployment.findUniqueOrThrow({ where: { id: dep.id } })).runtime as TRuntimeState;
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${dep.id}:stop`, { token: owner.token }), 200, "stop");
    expect(existsSync(state.dir)).toBe(false);
  });
});
