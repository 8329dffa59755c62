import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flushLocalRunLogs, purgeExpiredLogSegments } from "@/server/domain/deployments/run-log.service";
import { blobStore } from "@/server/platform/blob-store";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { runner } from "@/server/runtime";
import { api, BASE_URL, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp } from "./support/bridge-fixtures";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./support/deploy-fixtures";
import { handleSurfaceRequest, route } from "./support/handlers";

/**
 * Issue #37 item 2 (logs): a real app on the real local runner writes more
 * than the runner keeps (its log rotates at 128 KiB here); the runner loop
 * flushes it to the blob store in segments, the stop flushes the rest, and
 * the whole log reads back after the app is gone, in order, with no line lost
 * or doubled. Build steps carry their durations; `since` follows, `q`
 * searches, the download streams everything; another workspace gets nothing.
 */
process.env.CAPSTAN_RUNNER_LOG_MAX_BYTES = String(128 * 1024);
process.env.CAPSTAN_LOG_SEGMENT_BYTES = String(16 * 1024);
resetEnvCache();

const CHATTY = `
const http = require("node:http");
http.createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  if (url.pathname === "/health") return res.end("ok");
  if (url.pathname === "/spam") {
    const tag = url.searchParams.get("tag");
    const n = Number(url.searchParams.get("n"));
    for (let i = 0; i < n; i++) console.log(tag + " line " + i + " " + "x".repeat(80));
    return res.end("spammed");
  }
  res.statusCode = 404;
  res.end();
}).listen(Number(process.env.PORT), () => console.log("listening"));
`;

let owner: TTestUser;
let ws: string;
let dep: { id: string; surface_id: string; status: string };

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  const app = await confirmedApp(owner, ws, { files: { "server.js": CHATTY }, capabilities: [] }, HEALTH_EDIT);
  dep = await deploy(owner, ws, app.revisionId);
  expect(dep.status).toBe("active");
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
});

const get = (path: string, token = owner.token) => api("GET", `/v1/workspaces/${ws}${path}`, { token });
/** The app writes n lines; resolves once the launcher has written the last of them to the log. */
const spam = async (tag: string, n: number) => {
  const r = await handleSurfaceRequest(
    new Request(`http://localhost:3000/s/${dep.surface_id}/spam?tag=${tag}&n=${n}`),
    dep.surface_id,
  );
  expect(await r.text()).toBe("spammed");
  for (let i = 0; i < 200; i++) {
    if ((await runner().runLog(dep.id, 4096)).includes(` ${tag} line ${n - 1} `)) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`the log never showed ${tag} line ${n - 1}`);
};
const flush = () => flushLocalRunLogs(runner(), runner().hostId);
const ISO_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;
const count = (text: string, tag: string) => text.split("\n").filter((l) => l.includes(` ${tag} line `)).length;

describe("run logs beyond 64 KiB, kept after the app stops", () => {
  let endWhileLive = 0;

  it("build steps have their durations and every line its time", async () => {
    const logs = must(await get(`/deployments/${dep.id}/logs`), 200, "logs");
    expect(logs.build_steps.map((s: { name: string }) => s.name)).toEqual(["unpack", "install", "build", "start"]);
    for (const s of logs.build_steps.filter((x: { status: string }) => x.status !== "skipped")) {
      expect(s).toMatchObject({ status: "succeeded" });
      expect(s.duration_ms).toBeGreaterThanOrEqual(0);
      expect(Date.parse(s.finished_at)).toBeGreaterThanOrEqual(Date.parse(s.started_at));
    }
    expect(logs.build_steps.find((s: { name: string }) => s.name === "start").command).toBe("npm run start");
    expect(
      logs.build_log
        .trimEnd()
        .split("\n")
        .every((l: string) => ISO_LINE.test(l)),
    ).toBe(true);
    expect(logs.run_log).toMatch(/Z listening\n/);
    expect(
      logs.run_log
        .trimEnd()
        .split("\n")
        .every((l: string) => ISO_LINE.test(l)),
    ).toBe(true);
    expect(logs.retention_days).toBe(30);
  });

  it("segments are written while the app runs, across the runner's rotation", async () => {
    await spam("A", 1000); // ~100 KiB
    expect(await flush()).toBeGreaterThan(0);
    await spam("B", 1000); // the file rotates at 128 KiB meanwhile
    await flush();
    const segs = await db().deploymentLogSegment.findMany({ where: { deploymentId: dep.id }, orderBy: { seq: "asc" } });
    expect(segs.length).toBeGreaterThan(1);
    // Contiguous byte ranges, numbered from 1.
    segs.forEach((s, i) => {
      expect(s.seq).toBe(i + 1);
      if (i) expect(Number(s.startOffset)).toBe(Number(segs[i - 1]!.startOffset) + segs[i - 1]!.sizeBytes);
    });
    const logs = must(await get(`/deployments/${dep.id}/logs?tail_bytes=1048576`), 200, "logs");
    expect(logs.live).toBe(true);
    expect(count(logs.run_log, "A")).toBe(1000);
    expect(count(logs.run_log, "B")).toBe(1000);
    endWhileLive = logs.run_log_end;
  });

  it("follow: since gives only what is new", async () => {
    await spam("F", 3);
    const logs = must(await get(`/deployments/${dep.id}/logs?since=${endWhileLive}`), 200, "logs");
    expect(logs.run_log_start).toBe(endWhileLive);
    expect(logs.run_log.trimEnd().split("\n")).toHaveLength(3);
    expect(count(logs.run_log, "F")).toBe(3);
    const again = must(await get(`/deployments/${dep.id}/logs?since=${logs.run_log_end}`), 200, "logs");
    expect(again.run_log).toBe("");
  });

  it("after the stop the whole log reads back, in order, nothing lost or doubled", async () => {
    await spam("C", 500); // not flushed by the loop: the stop keeps it
    must(await api("POST", `/v1/workspaces/${ws}/deployments/${dep.id}:stop`, { token: owner.token }), 200, "stop");
    const logs = must(await get(`/deployments/${dep.id}/logs?tail_bytes=1048576`), 200, "logs");
    expect(logs.live).toBe(false);
    expect(logs.run_log_start).toBe(0);
    expect(Buffer.byteLength(logs.run_log)).toBeGreaterThan(64 * 1024);
    for (const [tag, n] of [
      ["A", 1000],
      ["B", 1000],
      ["F", 3],
      ["C", 500],
    ] as const)
      expect(count(logs.run_log, tag)).toBe(n);
    const lines = logs.run_log.trimEnd().split("\n");
    expect(lines.every((l: string) => ISO_LINE.test(l))).toBe(true);
    const order = lines
      .filter((l: string) => / [ABFC] line /.test(l))
      .map((l: string) => / ([ABFC]) line (\d+)/.exec(l)!.slice(1).join(""));
    expect(order[0]).toBe("A0");
    expect(order[999]).toBe("A999");
    expect(order[1000]).toBe("B0");
    expect(order.at(-1)).toBe("C499");
    // The tail still works on the ended log, starting at a whole line.
    const tail = must(await get(`/deployments/${dep.id}/logs?tail_bytes=2000`), 200, "tail");
    expect(ISO_LINE.test(tail.run_log)).toBe(true);
    expect(tail.run_log.trimEnd().split("\n").at(-1)).toMatch(/\[capstan\]|C line 499/);
  });

  it("search keeps only the lines that match, over the whole kept log", async () => {
    const logs = must(await get(`/deployments/${dep.id}/logs?q=${encodeURIComponent("c LINE 49")}`), 200, "search");
    const lines = logs.run_log.trimEnd().split("\n");
    // C line 49 and C line 490..499.
    expect(lines).toHaveLength(11);
    expect(lines.every((l: string) => / C line 49\d? /.test(l))).toBe(true);
    expect(logs.run_log_start).toBeNull();
    expect(must(await get(`/deployments/${dep.id}/logs?q=nothing-like-this`), 200, "search").run_log).toBe("");
  });

  it("download streams the whole log as text", async () => {
    const r = await route(
      new Request(`${BASE_URL}/v1/workspaces/${ws}/deployments/${dep.id}/logs/download`, {
        headers: { authorization: `Bearer ${owner.token}` },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(r.headers.get("content-disposition")).toBe(`attachment; filename="${dep.id}.log"`);
    const text = await r.text();
    expect(text).toMatch(/# step install: succeeded in \d+ ms/);
    expect(text).toContain("# --- run log ---");
    for (const [tag, n] of [
      ["A", 1000],
      ["B", 1000],
      ["C", 500],
    ] as const)
      expect(count(text, tag)).toBe(n);
  });

  it("another workspace reads nothing of it", async () => {
    const other = await makeUser();
    const otherWs = (await makeWorkspace(other.token)).id;
    const viaOwn = await api("GET", `/v1/workspaces/${otherWs}/deployments/${dep.id}/logs`, { token: other.token });
    expect(viaOwn.status).toBe(404);
    const viaTheirs = await api("GET", `/v1/workspaces/${ws}/deployments/${dep.id}/logs`, { token: other.token });
    expect(viaTheirs.status).toBe(403);
    for (const [w, status] of [
      [otherWs, 404],
      [ws, 403],
    ] as const) {
      const r = await route(
        new Request(`${BASE_URL}/v1/workspaces/${w}/deployments/${dep.id}/logs/download`, {
          headers: { authorization: `Bearer ${other.token}` },
        }),
      );
      expect(r.status).toBe(status);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(await r.text()).not.toContain(" line ");
    }
    const anonymous = await route(new Request(`${BASE_URL}/v1/workspaces/${ws}/deployments/${dep.id}/logs/download`));
    expect(anonymous.status).toBe(401);
  });

  it("retention: expired segments and their blobs go; the log says how much is no longer kept", async () => {
    const segs = await db().deploymentLogSegment.findMany({ where: { deploymentId: dep.id }, orderBy: { seq: "asc" } });
    const first = segs[0]!;
    expect(await blobStore().has(first.sha256)).toBe(true);
    await db().deploymentLogSegment.update({
      where: { id: first.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await purgeExpiredLogSegments()).toBe(1);
    expect(await db().deploymentLogSegment.count({ where: { deploymentId: dep.id } })).toBe(segs.length - 1);
    expect(await blobStore().has(first.sha256)).toBe(false);
    const logs = must(await get(`/deployments/${dep.id}/logs?tail_bytes=1048576`), 200, "logs");
    expect(logs.run_log_expired_before).toBe(first.sizeBytes);
    expect(logs.run_log_start).toBe(first.sizeBytes);
    expect(count(logs.run_log, "C")).toBe(500);
    expect(await purgeExpiredLogSegments()).toBe(0);
  });
});
