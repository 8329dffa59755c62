import { gzipSync } from "node:zlib";
import tar from "tar-stream";
import { beforeAll, describe, expect, it } from "vitest";
import { processPendingFreezes } from "@/server/domain/source/freeze.service";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * Local sources without ceremony (issue #39): a tar.gz of a working tree sent
 * to the uploads API becomes a product (`repo_url: "upload:"`, `ref: <upload
 * id>`) frozen exactly like a repository, under the same limits; and a local
 * source the server does not allow is a 422 naming SOURCE_ALLOW_LOCAL that
 * leaves nothing behind.
 */
type TEntry = { name: string; content?: string; type?: "file" | "directory" | "symlink" | "link"; linkname?: string };

async function tarGz(entries: TEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  for (const e of entries) {
    const type = e.type ?? "file";
    pack.entry(
      { name: e.name, type, mode: type === "directory" ? 0o755 : 0o644, linkname: e.linkname },
      type === "file" ? (e.content ?? "") : "",
    );
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

const APP: TEntry[] = [
  { name: "package.json", content: JSON.stringify({ name: "hello", scripts: { start: "node server.js" } }) },
  {
    name: "server.js",
    content: "require('node:http').createServer((q, s) => s.end('hi')).listen(process.env.PORT);\n",
  },
  {
    name: "capabilities.json",
    content: JSON.stringify({
      capabilities: [
        {
          id: "data.kv",
          required: true,
          actions: ["increment"],
          scope: { prefix: "/app", max_value_bytes: 1024, max_keys: 100 },
          credential_owner: "platform",
          provider: { allow: ["platform"], fallback: "none" },
        },
      ],
    }),
  },
];

let owner: TTestUser;
let ws: string;

function setEnv(vars: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
}

beforeAll(async () => {
  setEnv({ SOURCE_ALLOW_LOCAL: "0" });
  await bootApp();
  owner = await makeUser();
  ws = (await makeWorkspace(owner.token)).id;
});

async function upload(bytes: Buffer, workspace = ws, token = owner.token): Promise<string> {
  const r = await api("POST", `/v1/workspaces/${workspace}/uploads`, {
    token,
    rawBody: new Uint8Array(bytes),
    headers: { "content-type": "application/gzip" },
  });
  expect(r.status, r.text).toBe(201);
  return r.json.id as string;
}

async function freeze(frz: string) {
  for (let i = 0; i < 20; i++) {
    await processPendingFreezes(10);
    const r = await api("GET", `/v1/workspaces/${ws}/source-freezes/${frz}`, { token: owner.token });
    if (r.json.status !== "pending") return r.json;
  }
  throw new Error(`freeze ${frz} stayed pending`);
}

const products = () => db().product.count({ where: { workspaceId: ws } });
const intake = (repo_url: string, ref: string, workspace = ws) =>
  api("POST", `/v1/workspaces/${workspace}/products`, {
    token: owner.token,
    body: { repo_url, ref, auth: { kind: "none" }, name: `app-${Math.random().toString(36).slice(2, 8)}` },
  });

describe("local sources the server does not allow", () => {
  it.each(["file:///tmp/some/app", "http://127.0.0.1:9/app.git", "http://localhost/app.git"])(
    "%s: 422 naming SOURCE_ALLOW_LOCAL, no product left behind",
    async (url) => {
      const before = await products();
      const r = await intake(url, "main");
      expect(r.status).toBe(422);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(r.json).toMatchObject({
        code: "validation_failed",
        reason: "host_not_allowed",
        errors: [{ path: "/repo_url", code: "host_not_allowed" }],
      });
      expect(r.json.detail).toContain("SOURCE_ALLOW_LOCAL=1");
      expect(r.json.detail).toContain("capstan deploy");
      expect(await products()).toBe(before);
      expect(await db().sourceFreeze.count({ where: { workspaceId: ws, status: "failed" } })).toBe(0);
    },
  );
});

describe("uploaded trees", () => {
  it("freeze like a repository: snapshot, detected descriptor, the contract; the same tree again is replayed", async () => {
    const id = await upload(await tarGz(APP));
    const r = await intake("upload:", id);
    expect(r.status, r.text).toBe(202);
    const f = await freeze(r.json.source_freeze_id);
    expect(f.status, JSON.stringify(f)).toBe("frozen");
    expect(f.commit_sha).toBeNull();
    expect(f.replayed).toBe(false);
    expect(f.snapshot.sha256).toMatch(/^[0-9a-f]{64}$/);
    const rev = await api("GET", `/v1/workspaces/${ws}/revisions/${f.revision.id}`, { token: owner.token });
    expect(rev.json.descriptor.entrypoint).toEqual({ command: "npm", args: ["run", "start"] });
    const confirmed = await api(
      "POST",
      `/v1/workspaces/${ws}/products/${r.json.product_id}/revisions/${f.revision.id}/descriptor:confirm`,
      { token: owner.token, body: {} },
    );
    expect(confirmed.status, confirmed.text).toBe(200);
    const contract = await api("GET", `/v1/workspaces/${ws}/revisions/${f.revision.id}/capability-contract`, {
      token: owner.token,
    });
    expect(contract.json.capabilities.map((c: { id: string }) => c.id)).toEqual(["data.kv"]);

    // The same tree uploaded again (a new upload id: bytes are content-addressed) is a replay.
    const again = await upload(await tarGz(APP));
    const re = await api("POST", `/v1/workspaces/${ws}/products/${r.json.product_id}/source-freezes`, {
      token: owner.token,
      body: { ref: again },
    });
    expect(re.status, re.text).toBe(202);
    const f2 = await freeze(re.json.source_freeze_id);
    expect(f2).toMatchObject({ status: "frozen", replayed: true });
    expect(f2.snapshot.sha256).toBe(f.snapshot.sha256);
  });

  it("a ref that is not an upload of this workspace is a 422 with nothing created", async () => {
    const other = await makeUser();
    const otherWs = (await makeWorkspace(other.token)).id;
    const foreign = await upload(await tarGz(APP), otherWs, other.token);
    const before = await products();
    for (const ref of [foreign, "upl_00000000000000000000000000", "main"]) {
      const r = await intake("upload:", ref);
      expect(r.status, ref).toBe(422);
      expect(r.json).toMatchObject({ reason: "ref_not_found", errors: [{ path: "/ref" }] });
    }
    expect(await products()).toBe(before);
  });

  const bad: Array<[string, TEntry[] | Buffer, string, Record<string, string>?]> = [
    ["a .. path", [...APP, { name: "../escape.txt", content: "x" }], "traversal"],
    ["an absolute path", [...APP, { name: "/etc/cron.d/x", content: "x" }], "traversal"],
    ["a hard link", [...APP, { name: "h", type: "link", linkname: "server.js" }], "traversal"],
    [
      "a write through a symlink",
      [...APP, { name: "d", type: "symlink", linkname: "/tmp" }, { name: "d/x", content: "x" }],
      "traversal",
    ],
    [
      "a symlink out of the tree",
      [...APP, { name: "s", type: "symlink", linkname: "../../etc/passwd" }],
      "symlink_escape",
    ],
    [
      "a tree over the size limit",
      [...APP, { name: "big.txt", content: "y".repeat(5000) }],
      "size_limit",
      { SOURCE_MAX_TOTAL_BYTES: "4000" },
    ],
    [
      "too many files",
      [...APP, { name: "a", content: "a" }, { name: "b", content: "b" }],
      "file_count_limit",
      { SOURCE_MAX_FILES: "4" },
    ],
    ["bytes that are not a tar.gz", Buffer.from("definitely not gzip"), "fetch_failed"],
  ];
  for (const [what, entries, code, limits = {}] of bad)
    it(`rejects ${what} (${code})`, async () => {
      setEnv(limits);
      try {
        const id = await upload(Buffer.isBuffer(entries) ? entries : await tarGz(entries));
        const r = await intake("upload:", id);
        expect(r.status).toBe(202);
        const f = await freeze(r.json.source_freeze_id);
        expect(f.status, JSON.stringify(f)).toBe("rejected");
        expect(f.rejection.code).toBe(code);
        expect(f.snapshot).toBeUndefined();
      } finally {
        setEnv(Object.fromEntries(Object.keys(limits).map((k) => [k, undefined])));
      }
    });
});
