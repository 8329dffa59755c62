import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchSource, type TFetchOptions } from "../src/server/domain/source/git-fetch";
import { SourceRejection, type TSourceLimits } from "../src/server/domain/source/source.types";
import { scanTree } from "../src/server/domain/source/tree-scan";

/**
 * Source fetch against real git: repositories built on disk, served over
 * HTTP on 127.0.0.1 by `git http-backend` (CGI), over file://, and by
 * misbehaving servers (401, a server that never answers, a closed port).
 */
const tmp = mkdtempSync(path.join(os.tmpdir(), "capstan-fetch-int-"));
const workRoot = path.join(tmp, "work");
const srvRoot = path.join(tmp, "srv");
const gitEnv = { ...process.env, HOME: tmp, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C" };
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    cwd,
    env: gitEnv,
    encoding: "utf8",
  }).trim();

let sha1 = "";
let sha2 = "";
let cgi: http.Server;
let hang: net.Server;
const hangingSockets: net.Socket[] = [];
let base = "";
let hangPort = 0;
let closedPort = 0;

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)),
  );
}

/** node:http -> git http-backend (CGI/1.1), buffered: the repositories are tiny. */
function gitHttpServer(): http.Server {
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname.startsWith("/private/")) {
      res
        .writeHead(401, { "WWW-Authenticate": 'Basic realm="private"', "Content-Type": "text/plain" })
        .end("auth required");
      return;
    }
    if (url.pathname.startsWith("/moved/")) {
      res.writeHead(301, { Location: `/git/${url.pathname.slice("/moved/".length)}${url.search}` }).end();
      return;
    }
    if (!url.pathname.startsWith("/git/")) {
      res.writeHead(404).end();
      return;
    }
    const cgiEnv: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: tmp,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_PROJECT_ROOT: srvRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: url.pathname.slice("/git".length),
      QUERY_STRING: url.search.replace(/^\?/, ""),
      REQUEST_METHOD: req.method ?? "GET",
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      REMOTE_ADDR: req.socket.remoteAddress ?? "127.0.0.1",
      GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
      HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"] ?? ""),
      ...(req.headers["content-length"] ? { CONTENT_LENGTH: req.headers["content-length"] } : {}),
    };
    const child = spawn("/usr/lib/git-core/git-http-backend", [], {
      env: cgiEnv as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "ignore"],
    });
    req.pipe(child.stdin);
    const out: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.on("close", () => {
      const all = Buffer.concat(out);
      const sep = all.indexOf("\r\n\r\n");
      const head = all.subarray(0, sep).toString("latin1");
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.split("\r\n")) {
        const i = line.indexOf(":");
        const [k, v] = [line.slice(0, i).trim(), line.slice(i + 1).trim()];
        if (k.toLowerCase() === "status") status = Number(v.split(" ")[0]);
        else if (k) headers[k] = v;
      }
      res.writeHead(status, headers).end(all.subarray(sep + 4));
    });
  });
}

beforeAll(async () => {
  const work = path.join(tmp, "work-repo");
  mkdirSync(work);
  mkdirSync(srvRoot);
  git(work, "init", "-q", "-b", "main");
  mkdirSync(path.join(work, "src"));
  mkdirSync(path.join(work, "bin"));
  writeFileSync(path.join(work, "package.json"), '{"name":"app","version":"1.0.0"}\n');
  writeFileSync(path.join(work, "src/index.js"), "console.log('v1')\n");
  writeFileSync(path.join(work, "bin/run"), "#!/bin/sh\nnode src/index.js\n");
  chmodSync(path.join(work, "bin/run"), 0o755);
  symlinkSync("src/index.js", path.join(work, "current"));
  git(work, "add", "-A");
  git(work, "commit", "-q", "-m", "one");
  git(work, "tag", "-a", "v1", "-m", "release 1");
  sha1 = git(work, "rev-parse", "HEAD");
  writeFileSync(path.join(work, "src/index.js"), "console.log('v2')\n");
  writeFileSync(path.join(work, "CHANGELOG.md"), "two\n");
  git(work, "add", "-A");
  git(work, "commit", "-q", "-m", "two");
  sha2 = git(work, "rev-parse", "HEAD");
  git(tmp, "clone", "-q", "--bare", work, path.join(srvRoot, "app.git"));
  git(path.join(srvRoot, "app.git"), "config", "uploadpack.allowAnySHA1InWant", "true");
  hostileRepo(path.join(srvRoot, "hostile.git"));

  cgi = gitHttpServer();
  base = `http://127.0.0.1:${await listen(cgi)}`;
  hang = net.createServer((s) => hangingSockets.push(s)); // accepts, never answers
  hangPort = await listen(hang);
  const closed = net.createServer();
  closedPort = await listen(closed);
  await new Promise((r) => closed.close(r));
});

afterAll(async () => {
  for (const s of hangingSockets) s.destroy();
  await Promise.all([cgi, hang].map((s) => new Promise((r) => (s ? s.close(r) : r(undefined)))));
  rmSync(tmp, { recursive: true, force: true });
});

const opts = (o: Partial<TFetchOptions>): TFetchOptions => ({
  repoUrl: `${base}/git/app.git`,
  ref: "main",
  timeoutMs: 20_000,
  allowedHosts: ["github.com", "gitlab.com"],
  allowLocal: true,
  workRoot,
  ...o,
});

async function rejected(o: Partial<TFetchOptions>): Promise<SourceRejection> {
  const err = await fetchSource(opts(o)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SourceRejection);
  expect(workLeftovers()).toEqual([]); // temp dirs are removed on failure
  return err as SourceRejection;
}

function workLeftovers(): string[] {
  try {
    return readdirSync(workRoot);
  } catch {
    return [];
  }
}

describe("fetchSource over HTTP (git http-backend)", () => {
  it("fetches a branch: commit sha, tree with symlink and exec bit, no .git", async () => {
    const f = await fetchSource(opts({ ref: "main" }));
    try {
      expect(f.commitSha).toBe(sha2);
      expect(readdirSync(f.dir).sort()).toEqual(["CHANGELOG.md", "bin", "current", "package.json", "src"]);
      expect(readFileSync(path.join(f.dir, "src/index.js"), "utf8")).toBe("console.log('v2')\n");
      expect(lstatSync(path.join(f.dir, "current")).isSymbolicLink()).toBe(true);
      expect(readlinkSync(path.join(f.dir, "current"))).toBe("src/index.js");
      expect(lstatSync(path.join(f.dir, "bin/run")).mode & 0o100).toBe(0o100);
    } finally {
      await f.cleanup();
    }
    expect(workLeftovers()).toEqual([]);
  });

  it("fetches an annotated tag, peeled to its commit", async () => {
    const f = await fetchSource(opts({ ref: "v1" }));
    expect(f.commitSha).toBe(sha1);
    expect(readFileSync(path.join(f.dir, "src/index.js"), "utf8")).toBe("console.log('v1')\n");
    expect(readdirSync(f.dir)).not.toContain("CHANGELOG.md");
    await f.cleanup();
  });

  it("fetches a full commit sha that is not a branch tip", async () => {
    const f = await fetchSource(opts({ ref: sha1 }));
    expect(f.commitSha).toBe(sha1);
    expect(readdirSync(f.dir)).not.toContain("CHANGELOG.md");
    await f.cleanup();
  });

  it("fetches an abbreviated commit sha (full-fetch fallback)", async () => {
    const f = await fetchSource(opts({ ref: sha1.slice(0, 10) }));
    expect(f.commitSha).toBe(sha1);
    await f.cleanup();
  });

  it("ref_not_found for a missing branch, an unknown sha, and refs git would not accept", async () => {
    expect((await rejected({ ref: "no-such-branch" })).code).toBe("ref_not_found");
    expect((await rejected({ ref: "0123456789abcdef0123456789abcdef01234567" })).code).toBe("ref_not_found");
    for (const ref of [
      "--upload-pack=touch /tmp/pwned",
      "a..b",
      "main:refs/heads/x",
      "has space",
      "x.lock",
      "",
      "r".repeat(257),
      "@",
      "a//b",
    ]) {
      expect((await rejected({ ref })).code, ref).toBe("ref_not_found");
    }
  });

  it("private_source_unsupported when the server asks for credentials (401) or answers 404", async () => {
    const r = await rejected({ repoUrl: `${base}/private/app.git` });
    expect(r.code).toBe("private_source_unsupported");
    expect((await rejected({ repoUrl: `${base}/git/missing.git` })).code).toBe("private_source_unsupported");
  });

  it("does not follow redirects (fetch_failed)", async () => {
    const r = await rejected({ repoUrl: `${base}/moved/app.git` });
    expect(r.code).toBe("fetch_failed");
    expect(r.message).toMatch(/301/);
  });

  it("fetch_failed when nothing listens", async () => {
    const r = await rejected({ repoUrl: `http://127.0.0.1:${closedPort}/git/app.git` });
    expect(r.code).toBe("fetch_failed");
    expect(r.message).toMatch(/connect/i);
  });

  it("fetch_timeout when the server never answers; the git processes are gone", { timeout: 15_000 }, async () => {
    const t0 = Date.now();
    const r = await rejected({ repoUrl: `http://127.0.0.1:${hangPort}/git/app.git`, timeoutMs: 500 });
    expect(r.code).toBe("fetch_timeout");
    expect(r.detail).toMatchObject({ limit: 500 });
    const actual = (r.detail as { actual: number }).actual;
    expect(actual).toBeGreaterThanOrEqual(500);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(processesMentioning(`127.0.0.1:${hangPort}`)).toEqual([]);
  });
});

/** Trees a public repository can hold and that must not pass intake, built object by object. */
function hostileRepo(dir: string): void {
  git(tmp, "init", "-q", "--bare", dir);
  const blob = (content: string) =>
    execFileSync("git", ["hash-object", "-w", "--stdin"], {
      cwd: dir,
      env: gitEnv,
      input: content,
      encoding: "utf8",
    }).trim();
  const branch = (name: string, entries: string) => {
    const tree = execFileSync("git", ["mktree"], { cwd: dir, env: gitEnv, input: entries, encoding: "utf8" }).trim();
    const commit = git(dir, "commit-tree", tree, "-m", name);
    git(dir, "update-ref", `refs/heads/${name}`, commit);
  };
  const ok = blob("ok\n");
  branch("symlink-escape", `100644 blob ${ok}\tREADME\n120000 blob ${blob("../../../../etc/passwd")}\tescape\n`);
  branch("backslash", `100644 blob ${ok}\ta\\..\\..\\b\n`);
  branch("dotgit", `100644 blob ${ok}\t.GIT\n`);
}

describe("hostile repositories: fetched as they are, refused by the scan or by git", () => {
  const LIMITS: TSourceLimits = {
    maxTotalBytes: 1e6,
    maxFiles: 100,
    maxDepth: 10,
    maxFileBytes: 1e6,
    maxPathLength: 200,
  };

  it("a symlink out of the repository is checked out as a link and rejected by scanTree", async () => {
    const f = await fetchSource(opts({ repoUrl: `${base}/git/hostile.git`, ref: "symlink-escape" }));
    try {
      expect(readlinkSync(path.join(f.dir, "escape"))).toBe("../../../../etc/passwd");
      const err = await scanTree(f.dir, LIMITS).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "symlink_escape", path: "escape" });
    } finally {
      await f.cleanup();
    }
  });

  it("a backslash-separated `..` name is rejected by scanTree as traversal", async () => {
    const f = await fetchSource(opts({ repoUrl: `${base}/git/hostile.git`, ref: "backslash" }));
    try {
      expect(await scanTree(f.dir, LIMITS).catch((e: unknown) => e)).toMatchObject({
        code: "traversal",
        path: "a\\..\\..\\b",
      });
    } finally {
      await f.cleanup();
    }
  });

  it("a path git refuses to check out (.GIT) is traversal", async () => {
    const r = await rejected({ repoUrl: `${base}/git/hostile.git`, ref: "dotgit" });
    expect(r).toMatchObject({ code: "traversal", path: ".GIT" });
  });
});

describe("fetchSource over file://", () => {
  it("fetches a branch when local sources are enabled", async () => {
    const f = await fetchSource(opts({ repoUrl: `file://${path.join(srvRoot, "app.git")}` }));
    expect(f.commitSha).toBe(sha2);
    expect(readdirSync(f.dir)).toContain("package.json");
    await f.cleanup();
    expect(workLeftovers()).toEqual([]);
  });

  it("refuses file:// when local sources are disabled", async () => {
    expect((await rejected({ repoUrl: `file://${path.join(srvRoot, "app.git")}`, allowLocal: false })).code).toBe(
      "host_not_allowed",
    );
  });
});

describe("URL policy (no network)", () => {
  it.each([
    "https://example.org/x.git",
    "https://github.com.evil.example/x.git",
    "https://github.com:8443/a/b.git",
    "http://github.com/a/b.git",
    "ssh://git@github.com/a/b.git",
    "git://github.com/a/b.git",
    "git@github.com:a/b.git",
    "ext::sh -c touch% /tmp/pwned",
    "not a url",
  ])("host_not_allowed: %s", async (repoUrl) => {
    expect((await rejected({ repoUrl })).code).toBe("host_not_allowed");
  });

  it("host_not_allowed for loopback when local sources are disabled", async () => {
    for (const repoUrl of [
      `${base}/git/app.git`,
      "http://localhost/x.git",
      "https://[::1]/x.git",
      "http://127.1/x.git",
    ]) {
      expect((await rejected({ repoUrl, allowLocal: false })).code, repoUrl).toBe("host_not_allowed");
    }
  });

  it("private_source_unsupported for credentials in the URL, without echoing them", async () => {
    const r = await rejected({ repoUrl: "https://user:s3cret@github.com/a/b.git" });
    expect(r.code).toBe("private_source_unsupported");
    expect(r.message).not.toContain("s3cret");
    expect((await rejected({ repoUrl: "https://token@GitHub.com/a/b.git" })).code).toBe("private_source_unsupported");
  });
});

/** Live processes whose command line mentions `needle` (Linux /proc). */
function processesMentioning(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmd.includes(needle) && pid !== String(process.pid)) found.push(`${pid}: ${cmd}`);
    } catch {
      // exited meanwhile
    }
  }
  return found;
}
