import { execFileSync } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { processPushDeliveries } from "@/server/domain/deployments/push-confirm.service";
import { processPendingFreezes } from "@/server/domain/source/freeze.service";
import { db } from "@/server/platform/db/client";
import { runner } from "@/server/runtime";
import { api, BASE_URL, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { bootBridgeApp, kvCapability } from "./support/bridge-fixtures";
import { HEALTH_EDIT, makeAppRepo, must } from "./support/deploy-fixtures";
import { route } from "./support/handlers";

/**
 * Issue #37 item 3: deploy on push. A real local git repository, a real
 * freeze, the real deploy worker: a signed push of a commit that changes
 * only code becomes an active preview; a changed descriptor or a widened
 * contract waits for the owner; bad signatures, unknown products, malformed
 * bodies and untracked refs are problem documents that freeze nothing;
 * a replayed delivery answers its first outcome.
 */
let owner: TTestUser;
let ws: string;
let repoDir: string;
let prod: string;
let secret: string;

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: repoDir })
    .toString()
    .trim();
}
function commit(file: string, content: string): string {
  writeFileSync(`${repoDir}/${file}`, content);
  git("add", "-A");
  git("commit", "-q", "-m", `change ${file}`);
  return git("rev-parse", "HEAD");
}

const hookPath = (p = prod) => `/v1/hooks/products/${p}/push`;
const sign = (body: string, key = secret) => `sha256=${createHmac("sha256", key).update(body).digest("hex")}`;
async function push(body: string, headers: Record<string, string>, p = prod) {
  const res = await route(
    new Request(`${BASE_URL}${hookPath(p)}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    }),
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}
const githubPush = (sha: string, ref = "refs/heads/main", id: string = randomUUID()) => {
  const body = JSON.stringify({
    ref,
    after: sha,
    before: "0".repeat(40),
    repository: { full_name: "t/app" },
    head_commit: { id: sha },
  });
  return { body, headers: { "x-github-event": "push", "x-github-delivery": id, "x-hub-signature-256": sign(body) } };
};
const freezes = () => db().sourceFreeze.count({ where: { productId: prod } });
/** Runs the workers a real deployment has: freeze, push decision, deploy. */
async function settle(deliveryId: string) {
  for (let i = 0; i < 40; i++) {
    await processPendingFreezes(10);
    await processPushDeliveries(10);
    const d = await db().pushDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
    if (d.status !== "freezing") {
      if (d.deploymentId) await processPlannedDeployments(5);
      return d;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the delivery never left freezing");
}

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
  const url = makeAppRepo({ capabilities: [kvCapability()] });
  repoDir = url.replace(/^file:\/\//, "");
  const accepted = must(
    await api("POST", `/v1/workspaces/${ws}/products`, {
      token: owner.token,
      body: { repo_url: url, ref: "main", auth: { kind: "none" } },
    }),
    202,
    "intake",
  );
  prod = accepted.product_id;
  let freeze = { status: "pending", revision: { id: "" } };
  for (let i = 0; i < 30 && freeze.status === "pending"; i++) {
    await processPendingFreezes(10);
    freeze = must(
      await api("GET", `/v1/workspaces/${ws}/source-freezes/${accepted.source_freeze_id}`, { token: owner.token }),
      200,
      "freeze",
    );
  }
  // The owner confirmed the first revision with an edit of their own (the health path): it carries over.
  must(
    await api("POST", `/v1/workspaces/${ws}/products/${prod}/revisions/${freeze.revision.id}/descriptor:confirm`, {
      token: owner.token,
      body: { edits: HEALTH_EDIT },
    }),
    200,
    "confirm",
  );
  const hook = must(
    await api("POST", `/v1/workspaces/${ws}/products/${prod}/push-hook`, { token: owner.token, body: {} }),
    201,
    "hook",
  );
  expect(hook).toMatchObject({
    product_id: prod,
    tracked_ref: "main",
    url: `http://localhost:3000/v1/hooks/products/${prod}/push`,
  });
  secret = hook.secret;
  expect(secret).toMatch(/^cph_[0-9a-f]{48}$/);
});

afterAll(async () => {
  await runner().sweep(async () => new Set());
});

describe("deploy on push", () => {
  it("the hook's secret is shown once: reads never carry it, a second hook is a 409", async () => {
    const read = must(
      await api("GET", `/v1/workspaces/${ws}/products/${prod}/push-hook`, { token: owner.token }),
      200,
      "read",
    );
    expect(read).not.toHaveProperty("secret");
    expect(JSON.stringify(read)).not.toContain(secret);
    const again = await api("POST", `/v1/workspaces/${ws}/products/${prod}/push-hook`, {
      token: owner.token,
      body: {},
    });
    expect(again.status).toBe(409);
    expect(again.json.reason).toBe("push_hook_exists");
    const sealed = await db().pushHook.findUniqueOrThrow({ where: { productId: prod }, omit: { secretSealed: false } });
    expect(sealed.secretSealed).not.toContain(secret);
  });

  it("a code-only push is frozen, confirmed and deployed to preview; a replay changes nothing", async () => {
    const sha = commit("extra.js", "module.exports = 1;\n");
    const p = githubPush(sha);
    const r = await push(p.body, p.headers);
    expect(r.status, r.text).toBe(202);
    expect(r.json).toMatchObject({ status: "freezing", ref: "refs/heads/main", commit_sha: sha, product_id: prod });
    const d = await settle(r.json.id);
    expect(d, d.message ?? "").toMatchObject({ status: "deployed", reasonCode: null });
    const dep = must(
      await api("GET", `/v1/workspaces/${ws}/deployments/${d.deploymentId}`, { token: owner.token }),
      200,
      "dep",
    );
    expect(dep).toMatchObject({ status: "active", environment_type: "preview", revision_id: d.revisionId });
    const rev = must(
      await api("GET", `/v1/workspaces/${ws}/revisions/${d.revisionId}`, { token: owner.token }),
      200,
      "rev",
    );
    expect(rev).toMatchObject({ descriptor_status: "confirmed", commit_sha: sha, confirmed_by: owner.userId });
    expect(rev.descriptor.build_plan.health.path).toBe("/health");

    const before = await freezes();
    const replay = await push(p.body, p.headers);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json).toMatchObject({ id: r.json.id, status: "deployed", deployment_id: d.deploymentId });
    expect(await freezes()).toBe(before);

    const list = must(
      await api("GET", `/v1/workspaces/${ws}/products/${prod}/push-deliveries`, { token: owner.token }),
      200,
      "list",
    );
    expect(list.items.map((x: { id: string }) => x.id)).toContain(r.json.id);
  });

  it("a changed descriptor (a build step appears) waits for the owner at the revision page", async () => {
    const sha = commit(
      "package.json",
      JSON.stringify({ name: "app", version: "1.0.0", scripts: { start: "node server.js", build: "node -e 0" } }),
    );
    const r = await push(githubPush(sha).body, githubPush(sha).headers);
    expect(r.status).toBe(202);
    const d = await settle(r.json.id);
    expect(d).toMatchObject({ status: "awaiting_owner", reasonCode: "descriptor_changed", deploymentId: null });
    expect((await db().revision.findUniqueOrThrow({ where: { id: d.revisionId! } })).descriptorStatus).toBe("detected");
    expect(await db().deployment.count({ where: { revisionId: d.revisionId! } })).toBe(0);
    // Back to the confirmed descriptor for the next test.
    commit("package.json", JSON.stringify({ name: "app", version: "1.0.0", scripts: { start: "node server.js" } }));
  });

  it("a widened contract waits for the owner", async () => {
    const widened = kvCapability();
    widened.actions = [...new Set([...widened.actions, "delete", "list"])];
    widened.scope.max_keys = 99_999;
    const sha = commit("capabilities.json", JSON.stringify({ capabilities: [widened] }));
    const r = await push(githubPush(sha).body, githubPush(sha).headers);
    const d = await settle(r.json.id);
    expect(d).toMatchObject({ status: "awaiting_owner", reasonCode: "contract_widened", deploymentId: null });
    expect(d.message).toMatch(/asks for more/);
  });

  it("the generic signature works, and a stale one is refused", async () => {
    const sha = git("rev-parse", "HEAD");
    const body = JSON.stringify({ ref: "main", after: sha });
    const t = Math.floor(Date.now() / 1000);
    const sig = (ts: number) => `t=${ts},v1=${createHmac("sha256", secret).update(`${ts}.${body}`).digest("hex")}`;
    const stale = await push(body, { "capstan-signature": sig(t - 3600), "x-capstan-delivery": "stale-1" });
    expect(stale.status).toBe(401);
    expect(stale.json.reason).toBe("signature_stale");
    const ok = await push(body, { "capstan-signature": sig(t), "x-capstan-delivery": "generic-1" });
    expect(ok.status, ok.text).toBe(202);
    expect(ok.json).toMatchObject({ delivery_id: "generic-1", ref: "main", commit_sha: sha });
  });

  it("bad input is a problem document and freezes nothing", async () => {
    const before = await freezes();
    const sha = git("rev-parse", "HEAD");
    const good = githubPush(sha);
    const cases: Array<[string, Awaited<ReturnType<typeof push>>, number, string]> = [
      [
        "missing signature",
        await push(good.body, { "x-github-event": "push", "x-github-delivery": randomUUID() }),
        401,
        "signature_missing",
      ],
      [
        "wrong signature",
        await push(good.body, { ...good.headers, "x-hub-signature-256": sign(good.body, "cph_wrong") }),
        401,
        "signature_invalid",
      ],
      [
        "body changed after signing",
        await push(good.body.replace("main", "mainx"), good.headers),
        401,
        "signature_invalid",
      ],
      ["unknown product", await push(good.body, good.headers, "prod_00000000000000000000000000"), 404, "not_found"],
      ["malformed id", await push(good.body, good.headers, "nope"), 404, "not_found"],
      [
        "malformed JSON",
        await push("{not json", {
          "x-github-event": "push",
          "x-github-delivery": randomUUID(),
          "x-hub-signature-256": sign("{not json"),
        }),
        400,
        "malformed_json",
      ],
      [
        "not a push",
        await push("[1]", { "x-github-delivery": randomUUID(), "x-hub-signature-256": sign("[1]") }),
        422,
        "not_a_push",
      ],
      [
        "untracked ref",
        await push(githubPush(sha, "refs/heads/feature").body, githubPush(sha, "refs/heads/feature").headers),
        422,
        "ref_not_tracked",
      ],
      [
        "deleted ref",
        await push(githubPush("0".repeat(40)).body, githubPush("0".repeat(40)).headers),
        422,
        "ref_deleted",
      ],
      [
        "another event",
        await push(good.body, { ...good.headers, "x-github-event": "issues", "x-github-delivery": randomUUID() }),
        422,
        "event_not_supported",
      ],
    ];
    for (const [what, r, status, reason] of cases) {
      expect(r.status, what).toBe(status);
      expect(r.headers.get("content-type"), what).toBe("application/problem+json");
      expect(r.json.reason ?? r.json.code, what).toBe(reason);
    }
    expect(await freezes()).toBe(before);
    // A refused delivery replays as the same refusal.
    const untracked = githubPush(sha, "refs/heads/feature", "untracked-1");
    expect((await push(untracked.body, untracked.headers)).status).toBe(422);
    expect((await push(untracked.body, untracked.headers)).json.reason).toBe("ref_not_tracked");
    // A ping (sent when the hook is added on GitHub) is answered, nothing more.
    const ping = await push("{}", {
      "x-github-event": "ping",
      "x-github-delivery": randomUUID(),
      "x-hub-signature-256": sign("{}"),
    });
    expect(ping).toMatchObject({ status: 200, json: { status: "pong" } });
    expect(await freezes()).toBe(before);
  });

  it("rotation: the old secret stops verifying at once", async () => {
    const old = secret;
    const rotated = must(
      await api("POST", `/v1/workspaces/${ws}/products/${prod}/push-hook:rotate-secret`, {
        token: owner.token,
        body: {},
      }),
      200,
      "rotate",
    );
    expect(rotated.secret).not.toBe(old);
    expect(rotated.secret_rotated_at).not.toBeNull();
    const sha = git("rev-parse", "HEAD");
    const body = JSON.stringify({ ref: "refs/heads/main", after: sha });
    const withOld = await push(body, { "x-hub-signature-256": sign(body, old), "x-github-delivery": randomUUID() });
    expect(withOld.status).toBe(401);
    secret = rotated.secret;
    const withNew = await push(body, { "x-hub-signature-256": sign(body), "x-github-delivery": randomUUID() });
    expect(withNew.status).toBe(202);
  });

  it("another workspace can neither read nor manage the hook", async () => {
    const other = await makeUser();
    const otherWs = (await makeWorkspace(other.token)).id;
    for (const [method, suffix] of [
      ["GET", "push-hook"],
      ["GET", "push-deliveries"],
      ["POST", "push-hook:rotate-secret"],
      ["DELETE", "push-hook"],
    ] as const) {
      const own = await api(method, `/v1/workspaces/${otherWs}/products/${prod}/${suffix}`, {
        token: other.token,
        ...(method === "POST" ? { body: {} } : {}),
      });
      expect(own.status, `${method} ${suffix}`).toBe(404);
      const theirs = await api(method, `/v1/workspaces/${ws}/products/${prod}/${suffix}`, {
        token: other.token,
        ...(method === "POST" ? { body: {} } : {}),
      });
      expect(theirs.status, `${method} ${suffix}`).toBe(403);
    }
    expect(await db().pushHook.count({ where: { productId: prod } })).toBe(1);
  });

  it("removing the hook refuses pushes from then on", async () => {
    expect(
      (await api("DELETE", `/v1/workspaces/${ws}/products/${prod}/push-hook`, { token: owner.token })).status,
    ).toBe(204);
    const p = githubPush(git("rev-parse", "HEAD"));
    expect((await push(p.body, p.headers)).status).toBe(404);
  });
});
