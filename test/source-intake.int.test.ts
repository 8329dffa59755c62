import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { validateEventData } from "@/server/domain/events/event-schemas";
import { processPendingFreezes } from "@/server/domain/source/freeze.service";
import { handleUpload } from "./support/handlers";
import { blobStore } from "@/server/platform/blob-store";
import { canonicalJson } from "@/server/platform/canonical-json";
import { sha256Hex } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { env, resetEnvCache } from "@/server/platform/env";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * Source intake end to end through the REST boundary and the freeze worker,
 * against real git repositories on disk (file:// with SOURCE_ALLOW_LOCAL=1;
 * the HTTP transport and fetch-level rejections are in source-fetch.int.test.ts).
 */
type TFiles = Record<string, string | { symlink: string }>;

const root = mkdtempSync(path.join(os.tmpdir(), "capstan-repos-"));
let repoCount = 0;

function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args],
    {
      cwd,
      encoding: "utf8",
    },
  ).trim();
}

/** A real repository with one commit per file set; returns its file:// URL and the commits. */
function makeRepo(...commits: TFiles[]): { url: string; dir: string; shas: string[] } {
  const dir = path.join(root, `repo-${++repoCount}`);
  mkdirSync(dir);
  git(dir, "init", "-q");
  const shas: string[] = [];
  for (const files of commits) {
    for (const [rel, content] of Object.entries(files)) {
      const full = path.join(dir, rel);
      mkdirSync(path.dirname(full), { recursive: true });
      if (typeof content === "string") writeFileSync(full, content);
      else symlinkSync(content.symlink, full);
    }
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", `commit ${shas.length}`);
    shas.push(git(dir, "rev-parse", "HEAD"));
  }
  return { url: `file://${dir}`, dir, shas };
}

const PKG = JSON.stringify({
  name: "app",
  scripts: { start: "node server.js", build: "tsc -p ." },
  engines: { node: "20.x" },
});
const CONTRACT = {
  capabilities: [
    {
      id: "data.kv",
      required: true,
      actions: ["get", "set"],
      scope: { prefix: "/app", max_value_bytes: 1024, max_keys: 100 },
      credential_owner: "platform",
      provider: { allow: ["platform"], fallback: "none" },
    },
    {
      id: "ai.generate",
      required: false,
      actions: ["generate"],
      scope: { models: ["text"], max_tokens_per_call: 512 },
      credential_owner: "workspace",
      provider: { allow: ["openai"], fallback: "none" },
    },
  ],
};
const NODE_APP: TFiles = {
  "package.json": PKG,
  "package-lock.json": "{}",
  "server.js": "console.log(1)\n",
  "capabilities.json": JSON.stringify(CONTRACT),
};

let owner: TTestUser;
let ws: string;

function setEnv(vars: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
}

const LIMIT_VARS = [
  "SOURCE_MAX_TOTAL_BYTES",
  "SOURCE_MAX_FILES",
  "SOURCE_MAX_DEPTH",
  "SOURCE_MAX_FILE_BYTES",
  "SOURCE_MAX_PATH_LENGTH",
];

beforeAll(async () => {
  setEnv({ SOURCE_ALLOW_LOCAL: "1" });
  await bootApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
});

async function intake(repoUrl: string, ref = "main", token = owner.token, workspace = ws) {
  return api("POST", `/v1/workspaces/${workspace}/products`, {
    token,
    body: { repo_url: repoUrl, ref, auth: { kind: "none" } },
  });
}

/** Runs the freeze worker until the freeze leaves `pending`; returns the freeze record. */
async function freeze(frz: string, workspace = ws, token = owner.token) {
  for (let i = 0; i < 20; i++) {
    await processPendingFreezes(10);
    const r = await api("GET", `/v1/workspaces/${workspace}/source-freezes/${frz}`, { token });
    if (r.json.status !== "pending") return r.json;
  }
  throw new Error(`freeze ${frz} stayed pending`);
}

async function frozenProduct(files: TFiles | TFiles[] = NODE_APP) {
  const repo = makeRepo(...(Array.isArray(files) ? files : [files]));
  const accepted = await intake(repo.url);
  expect(accepted.status).toBe(202);
  const f = await freeze(accepted.json.source_freeze_id);
  return { repo, accepted: accepted.json, freeze: f };
}

describe("intake and freeze", () => {
  it("answers 202 at once, then freezes to a snapshot whose sha256 matches the blob", async () => {
    const repo = makeRepo(NODE_APP);
    const r = await intake(repo.url);
    expect(r.status).toBe(202);
    expect(r.json).toEqual({
      source_freeze_id: expect.stringMatching(/^frz_[0-7][0-9a-hjkmnp-tv-z]{25}$/),
      status: "pending",
      product_id: expect.stringMatching(/^prod_/),
      links: { self: `/v1/workspaces/${ws}/source-freezes/${r.json.source_freeze_id}` },
    });
    const pending = await api("GET", `/v1/workspaces/${ws}/source-freezes/${r.json.source_freeze_id}`, {
      token: owner.token,
    });
    expect(pending.json.status).toBe("pending");

    const f = await freeze(r.json.source_freeze_id);
    expect(f.status).toBe("frozen");
    expect(f.commit_sha).toBe(repo.shas[0]);
    expect(f.replayed).toBe(false);
    const blob = await blobStore().get(f.snapshot.sha256);
    expect(blob).not.toBeNull();
    expect(sha256Hex(blob!)).toBe(f.snapshot.sha256);
    expect(blob!.length).toBe(f.snapshot.size_bytes);
    expect(f.product).toMatchObject({ id: r.json.product_id, workspace_id: ws, type: "hosted-app" });

    const product = await api("GET", `/v1/workspaces/${ws}/products/${r.json.product_id}`, { token: owner.token });
    expect(product.status).toBe(200);
    expect(product.json).toMatchObject({
      id: r.json.product_id,
      workspace_id: ws,
      type: "hosted-app",
      input_revision_id: f.revision.id,
    });
    const audit = await db().auditRecord.findMany({
      where: { workspaceId: ws, action: "product.created", targetId: r.json.product_id },
    });
    expect(audit).toHaveLength(1);
  });

  it("detects the node descriptor with every field detected", async () => {
    const { freeze: f } = await frozenProduct();
    const rev = await api("GET", `/v1/workspaces/${ws}/revisions/${f.revision.id}`, { token: owner.token });
    expect(rev.status).toBe(200);
    expect(rev.json.descriptor_status).toBe("detected");
    expect(rev.json.confirmed_by).toBeNull();
    const d = rev.json.descriptor;
    expect(d.runtime).toEqual({ kind: "node", version: "20.x" });
    expect(d.build_plan.install).toEqual({ package_manager: "npm", command: "npm ci" });
    expect(d.build_plan.build.command).toContain("build");
    expect(d.ports).toEqual([{ port: 3000, protocol: "http" }]);
    expect(Object.values(d.field_sources).every((s) => s === "detected")).toBe(true);
  });

  it("replays the same commit without a second blob, and snapshots are byte-identical", async () => {
    const { repo, accepted, freeze: first } = await frozenProduct();
    const blobDir = path.join(env().CAPSTAN_DATA_DIR, "blobs");
    const countBlobs = () =>
      readdirSync(blobDir, { recursive: true }).filter((p) => /[0-9a-f]{64}$/.test(String(p))).length;
    const before = countBlobs();
    const again = await api("POST", `/v1/workspaces/${ws}/products/${accepted.product_id}/source-freezes`, {
      token: owner.token,
      body: { ref: "main" },
    });
    expect(again.status).toBe(202);
    const second = await freeze(again.json.source_freeze_id);
    expect(second.status).toBe("frozen");
    expect(second.replayed).toBe(true);
    expect(second.snapshot).toEqual(first.snapshot);
    expect(countBlobs()).toBe(before);

    // Another product from a separate clone of the same content: the same bytes.
    const other = await intake(repo.url);
    const third = await freeze(other.json.source_freeze_id);
    expect(third.replayed).toBe(false);
    expect(third.snapshot.sha256).toBe(first.snapshot.sha256);
  });

  it("rejects bad intake bodies with 422 and creates nothing", async () => {
    const count = () => db().product.count({ where: { workspaceId: ws } });
    const before = await count();
    for (const body of [
      { repo_url: "https://github.com/a/b", ref: "main", auth: { kind: "token" } },
      { repo_url: "https://github.com/a/b", ref: "x".repeat(257), auth: { kind: "none" } },
      { repo_url: "", ref: "main", auth: { kind: "none" } },
      { repo_url: "https://github.com/a/b", ref: "main" },
      { repo_url: "https://github.com/a/b", ref: "main", auth: { kind: "none" }, product_type: "library" },
    ]) {
      const r = await api("POST", `/v1/workspaces/${ws}/products`, { token: owner.token, body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
    }
    expect(await count()).toBe(before);
  });
});

describe("rejections (spec 2.4), each from a crafted repository", () => {
  const cases: Array<{
    code: string;
    files?: TFiles;
    env?: Record<string, string>;
    url?: string;
    ref?: string;
    detail?: boolean;
    pathHint?: string;
  }> = [
    {
      code: "size_limit",
      files: { ...NODE_APP, "big.bin": "x".repeat(5000) },
      env: { SOURCE_MAX_TOTAL_BYTES: "4000" },
      detail: true,
    },
    {
      code: "file_count_limit",
      files: { ...NODE_APP, "a.txt": "a", "b.txt": "b" },
      env: { SOURCE_MAX_FILES: "5" },
      detail: true,
    },
    {
      code: "depth_limit",
      files: { ...NODE_APP, "a/b/c/d/e.txt": "deep" },
      env: { SOURCE_MAX_DEPTH: "3" },
      detail: true,
      pathHint: "a/b/c/d",
    },
    {
      code: "file_size_limit",
      files: { ...NODE_APP, "big.txt": "y".repeat(3000) },
      env: { SOURCE_MAX_FILE_BYTES: "2000" },
      detail: true,
      pathHint: "big.txt",
    },
    {
      code: "path_length",
      files: { ...NODE_APP, [`${"p".repeat(60)}.txt`]: "long" },
      env: { SOURCE_MAX_PATH_LENGTH: "40" },
      detail: true,
    },
    { code: "symlink_escape", files: { ...NODE_APP, escape: { symlink: "../../../etc/passwd" } }, pathHint: "escape" },
    { code: "symlink_escape", files: { ...NODE_APP, abs: { symlink: "/etc/passwd" } }, pathHint: "abs" },
    { code: "ref_not_found", files: NODE_APP, ref: "no-such-branch" },
    { code: "host_not_allowed", url: "https://example.org/owner/repo.git" },
    { code: "private_source_unsupported", url: "https://user:secret@github.com/owner/repo.git" },
    { code: "fetch_failed", url: "file:///nonexistent/capstan/repo" },
    {
      code: "credential_in_descriptor",
      files: {
        ...NODE_APP,
        "package.json": JSON.stringify({
          name: "x",
          scripts: { start: "OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz0123 node server.js" },
        }),
      },
    },
  ];

  for (const c of cases) {
    it(`${c.code}${c.pathHint ? ` (${c.pathHint})` : ""}`, async () => {
      setEnv(c.env ?? {});
      try {
        const url = c.url ?? makeRepo(c.files!).url;
        const r = await intake(url, c.ref ?? "main");
        expect(r.status).toBe(202);
        const f = await freeze(r.json.source_freeze_id);
        expect(f.status).toBe("rejected");
        expect(f.rejection.code).toBe(c.code);
        if (c.detail) {
          expect(f.rejection.detail.actual).toBeGreaterThan(f.rejection.detail.limit);
          expect(f.rejection.detail.limit).toBe(Number(Object.values(c.env!)[0]));
        }
        if (c.code === "credential_in_descriptor") expect(f.rejection.detail.field).toMatch(/start/);
        expect(f.problem).toMatchObject({
          status: 422,
          code: "validation_failed",
          correlation_id: expect.stringMatching(/^evt_/),
        });
        expect(f.problem.errors[0].code).toBe(c.code);
        if (c.pathHint) expect(f.problem.errors[0].path).toContain(c.pathHint);
        expect(f.snapshot).toBeUndefined();
        expect(JSON.stringify(f)).not.toContain("secret@");
        expect(JSON.stringify(f)).not.toContain("sk-abcdefghijklmnopqrstuvwxyz0123");
      } finally {
        setEnv(Object.fromEntries(LIMIT_VARS.map((k) => [k, undefined])));
      }
    });
  }

  it("fails (not rejects) a repository that is neither a node nor a shell app", async () => {
    const r = await intake(makeRepo({ "README.md": "# hi\n" }).url);
    const f = await freeze(r.json.source_freeze_id);
    expect(f.status).toBe("failed");
    expect(f.problem.detail).toMatch(/package\.json|start\.sh/);
  });
});

describe("descriptor confirmation and the capability contract", () => {
  it("confirms with edits, hashes the descriptor and makes the contract ready with an event", async () => {
    const { accepted, freeze: f } = await frozenProduct();
    const rev = f.revision.id;
    const before = await api("GET", `/v1/workspaces/${ws}/revisions/${rev}/capability-contract`, {
      token: owner.token,
    });
    expect(before.status).toBe(409);

    const confirm = await api(
      "POST",
      `/v1/workspaces/${ws}/products/${accepted.product_id}/revisions/${rev}/descriptor:confirm`,
      {
        token: owner.token,
        body: {
          edits: {
            build_plan: { start: { command: "node server.js --port 3000" } },
            ports: [{ port: 3000, protocol: "http" }],
          },
        },
      },
    );
    expect(confirm.status).toBe(200);
    const d = confirm.json.descriptor;
    expect(confirm.json.confirmed_by).toBe(owner.userId);
    expect(confirm.json.descriptor_status).toBe("confirmed");
    expect(d.build_plan.start.command).toBe("node server.js --port 3000");
    expect(d.field_sources["build_plan.start"]).toBe("developer");
    expect(d.field_sources.ports).toBe("developer");
    expect(d.field_sources.runtime).toBe("detected");
    expect(confirm.json.descriptor_hash).toBe(sha256Hex(canonicalJson(d)));

    const contract = await api("GET", `/v1/workspaces/${ws}/revisions/${rev}/capability-contract`, {
      token: owner.token,
    });
    expect(contract.status).toBe(200);
    expect(contract.json).toMatchObject({
      id: rev,
      revision_id: rev,
      product_id: accepted.product_id,
      workspace_id: ws,
    });
    expect(contract.json.capabilities.map((c: { id: string }) => c.id)).toEqual(["ai.generate", "data.kv"]);
    expect(contract.json.contract_hash).toMatch(/^[0-9a-f]{64}$/);

    const events = await db().outboxEvent.findMany({
      where: { workspaceId: ws, type: "capability.contract_ready", subject: rev },
    });
    expect(events).toHaveLength(1);
    expect(events[0]!.version).toBe("1.2.0");
    expect(validateEventData("capability.contract_ready", events[0]!.data)).toEqual([]);
    expect((events[0]!.data as { contract_hash: string }).contract_hash).toBe(contract.json.contract_hash);

    const again = await api(
      "POST",
      `/v1/workspaces/${ws}/products/${accepted.product_id}/revisions/${rev}/descriptor:confirm`,
      { token: owner.token, body: {} },
    );
    expect(again.status).toBe(409);
  });

  it("refuses extra fields, bad values and credentials in edits, changing nothing", async () => {
    const { accepted, freeze: f } = await frozenProduct();
    const url = `/v1/workspaces/${ws}/products/${accepted.product_id}/revisions/${f.revision.id}/descriptor:confirm`;
    for (const body of [
      { edits: { build_plan: { start: { command: "x", extra: 1 } } } },
      { edits: { ports: [{ port: 70000, protocol: "http" }] } },
      { edits: { runtime: { kind: "python", version: "3" } } },
      { edits: { build_plan: { health: { path: "healthz" } } } },
      { nonsense: true },
    ]) {
      const r = await api("POST", url, { token: owner.token, body });
      expect(r.status, JSON.stringify(body)).toBe(422);
    }
    const cred = await api("POST", url, {
      token: owner.token,
      body: {
        edits: { build_plan: { start: { command: "TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 node s.js" } } },
      },
    });
    expect(cred.status).toBe(422);
    expect(cred.json.reason).toBe("credential_in_descriptor");
    expect(cred.text).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    const rev = await api("GET", `/v1/workspaces/${ws}/revisions/${f.revision.id}`, { token: owner.token });
    expect(rev.json.descriptor_status).toBe("detected");
  });

  it("shows a rejected contract with its reason", async () => {
    const bad = { capabilities: [{ ...CONTRACT.capabilities[0], id: "fax.send" }] };
    const { freeze: f } = await frozenProduct({ ...NODE_APP, "capabilities.json": JSON.stringify(bad) });
    expect(f.status).toBe("frozen");
    const rev = await api("GET", `/v1/workspaces/${ws}/revisions/${f.revision.id}`, { token: owner.token });
    expect(rev.json.capability_contract).toEqual({ status: "rejected", reason: "unknown_capability" });
    const c = await api("GET", `/v1/workspaces/${ws}/revisions/${f.revision.id}/capability-contract`, {
      token: owner.token,
    });
    expect(c.status).toBe(200);
    expect(c.json).toEqual({ capability_contract: { status: "rejected", reason: "unknown_capability" } });
  });

  it("refuses a widened contract unless an owner or admin approves it", async () => {
    const wider = {
      capabilities: [{ ...CONTRACT.capabilities[0], actions: ["get", "set", "delete"] }, CONTRACT.capabilities[1]],
    };
    const repo = makeRepo(NODE_APP);
    const accepted = (await intake(repo.url)).json;
    const first = await freeze(accepted.source_freeze_id);
    const base = `/v1/workspaces/${ws}/products/${accepted.product_id}/revisions`;
    expect(
      (await api("POST", `${base}/${first.revision.id}/descriptor:confirm`, { token: owner.token, body: {} })).status,
    ).toBe(200);

    writeFileSync(path.join(repo.dir, "capabilities.json"), JSON.stringify(wider));
    git(repo.dir, "commit", "-q", "-am", "widen");
    const next = await api("POST", `/v1/workspaces/${ws}/products/${accepted.product_id}/source-freezes`, {
      token: owner.token,
      body: { ref: "main" },
    });
    const second = await freeze(next.json.source_freeze_id);
    expect(second.status).toBe("frozen");

    const dev = await makeUser();
    await api("PUT", `/v1/workspaces/${ws}/members/${dev.userId}`, { token: owner.token, body: { role: "developer" } });
    const refused = await api("POST", `${base}/${second.revision.id}/descriptor:confirm`, {
      token: dev.token,
      body: {},
    });
    expect(refused.status).toBe(409);
    expect(refused.json.reason).toBe("scope_widened");
    const notAllowed = await api("POST", `${base}/${second.revision.id}/descriptor:confirm`, {
      token: dev.token,
      body: { approve_widening: true },
    });
    expect(notAllowed.status).toBe(403);
    const rev = await api("GET", `/v1/workspaces/${ws}/revisions/${second.revision.id}`, { token: owner.token });
    expect(rev.json.descriptor_status).toBe("detected");

    const approved = await api("POST", `${base}/${second.revision.id}/descriptor:confirm`, {
      token: owner.token,
      body: { approve_widening: true },
    });
    expect(approved.status).toBe(200);
    const c = await api("GET", `/v1/workspaces/${ws}/revisions/${second.revision.id}/capability-contract`, {
      token: owner.token,
    });
    expect(c.json.capabilities.find((x: { id: string }) => x.id === "data.kv").actions).toEqual([
      "get",
      "set",
      "delete",
    ]);
  });
});

describe("revisions, uploads and tenancy", () => {
  it("lists revisions filtered by product", async () => {
    const { accepted } = await frozenProduct();
    const list = await api("GET", `/v1/workspaces/${ws}/revisions?product_id=${accepted.product_id}`, {
      token: owner.token,
    });
    expect(list.status).toBe(200);
    expect(list.json.items).toHaveLength(1);
    expect(list.json.items[0].product_id).toBe(accepted.product_id);
    const bad = await api("GET", `/v1/workspaces/${ws}/revisions?product_id=nope`, { token: owner.token });
    expect(bad.status).toBe(400);
  });

  it("stores uploads content-addressed and returns an evidence reference", async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10]);
    const res = await handleUpload(
      new Request(`http://localhost:3000/v1/workspaces/${ws}/uploads`, {
        method: "POST",
        body: bytes,
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/octet-stream" },
      }),
      ws,
    );
    expect(res.status).toBe(201);
    const up = await res.json();
    expect(up).toMatchObject({
      id: expect.stringMatching(/^upl_/),
      workspace_id: ws,
      sha256: sha256Hex(bytes),
      size_bytes: 6,
    });
    expect(Buffer.compare((await blobStore().get(up.sha256))!, bytes)).toBe(0);

    const empty = await handleUpload(
      new Request(`http://localhost:3000/v1/workspaces/${ws}/uploads`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner.token}` },
      }),
      ws,
    );
    expect(empty.status).toBe(422);
    const stranger = await makeUser();
    const forbidden = await handleUpload(
      new Request(`http://localhost:3000/v1/workspaces/${ws}/uploads`, {
        method: "POST",
        body: bytes,
        headers: { authorization: `Bearer ${stranger.token}` },
      }),
      ws,
    );
    expect(forbidden.status).toBe(403);
    const anon = await handleUpload(
      new Request(`http://localhost:3000/v1/workspaces/${ws}/uploads`, { method: "POST", body: bytes }),
      ws,
    );
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toMatch(/^Bearer realm="capstan"/);
  });

  it("answers 404 for another workspace's product, freeze and revision ids, and 403 to non-members", async () => {
    const { accepted, freeze: f } = await frozenProduct();
    const other = await makeUser();
    const otherWs = (await makeWorkspace(other.token)).id;
    for (const p of [
      `/v1/workspaces/${otherWs}/products/${accepted.product_id}`,
      `/v1/workspaces/${otherWs}/source-freezes/${accepted.source_freeze_id}`,
      `/v1/workspaces/${otherWs}/revisions/${f.revision.id}`,
      `/v1/workspaces/${otherWs}/revisions/${f.revision.id}/capability-contract`,
    ]) {
      const r = await api("GET", p, { token: other.token });
      expect(r.status, p).toBe(404);
    }
    const confirm = await api(
      "POST",
      `/v1/workspaces/${otherWs}/products/${accepted.product_id}/revisions/${f.revision.id}/descriptor:confirm`,
      { token: other.token, body: {} },
    );
    expect(confirm.status).toBe(404);
    const direct = await api("GET", `/v1/workspaces/${ws}/products/${accepted.product_id}`, { token: other.token });
    expect(direct.status).toBe(403);
  });
});
