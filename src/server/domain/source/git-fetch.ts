import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { SourceRejection, type TFetched } from "./source.types";

/**
 * Shallow-fetches one ref of a public git repository with the system git and
 * checks it out into `<tmp>/tree`; the git directory lives beside it
 * (`<tmp>/git`, removed after checkout), so the tree never holds `.git`.
 *
 * Policy (spec 2.4 codes): https to an allow-listed host (exact,
 * case-insensitive, default port) or, only with `allowLocal`, file:// and
 * http(s) to loopback on any port; everything else is `host_not_allowed`.
 * Credentials are never sent: one in the URL, or a server asking for them
 * (401/403, and 404 because GitHub and GitLab answer 404 for private
 * repositories), is `private_source_unsupported`. git runs without a shell,
 * without system/global config, credential helpers, prompts, hooks, LFS
 * filters, redirects or background gc, in its own process group that is
 * killed at the deadline (`fetch_timeout`, covering the whole fetch and
 * checkout). Submodules are not fetched.
 */
export type TFetchOptions = {
  repoUrl: string;
  ref: string;
  timeoutMs: number;
  allowedHosts: string[];
  allowLocal: boolean;
  workRoot: string;
};

export async function fetchSource(opts: TFetchOptions): Promise<TFetched> {
  const started = Date.now();
  const target = checkUrl(opts.repoUrl, opts.allowedHosts, opts.allowLocal);
  checkRef(opts.ref);
  await mkdir(opts.workRoot, { recursive: true });
  const base = await mkdtemp(path.join(opts.workRoot, "fetch-"));
  const cleanup = () => rm(base, { recursive: true, force: true, maxRetries: 3 });
  try {
    const gitDir = path.join(base, "git");
    const tree = path.join(base, "tree");
    const home = path.join(base, "home");
    await mkdir(tree);
    await mkdir(home);
    const ctx: TCtx = {
      env: gitEnv(home, target.local),
      started,
      timeoutMs: opts.timeoutMs,
      allowLocal: opts.allowLocal,
    };
    const g = ["--git-dir", gitDir];

    must(await runGit(ctx, ["init", "-q", "--bare", "--template=", gitDir]));
    const shallow = await runGit(ctx, [...g, "fetch", "-q", "--depth", "1", "--no-tags", "--", target.href, opts.ref]);
    let rev = "FETCH_HEAD";
    if (shallow.code !== 0) {
      const rejection = classify(shallow.stderr);
      if (rejection.code !== "ref_not_found" || !HEX_COMMIT.test(opts.ref)) throw rejection;
      // A commit the server will not hand out by id (older servers, abbreviated ids): fetch
      // every branch and tag and look for it locally. Bounded by the same deadline.
      const full = await runGit(ctx, [
        ...g,
        "fetch",
        "-q",
        "--no-tags",
        "--",
        target.href,
        "+refs/heads/*:refs/remotes/origin/*",
        "+refs/tags/*:refs/tags/*",
      ]);
      if (full.code !== 0) throw classify(full.stderr);
      rev = opts.ref;
    }
    const resolved = await runGit(ctx, [
      ...g,
      "rev-parse",
      "--verify",
      "--quiet",
      "--end-of-options",
      `${rev}^{commit}`,
    ]);
    const commitSha = resolved.stdout.trim();
    if (resolved.code !== 0 || !/^[0-9a-f]{40}$/.test(commitSha)) {
      throw new SourceRejection(
        "ref_not_found",
        `The ref ${JSON.stringify(opts.ref)} does not name a commit in the repository`,
      );
    }
    const checkout = await runGit(ctx, [...g, "--work-tree", tree, "checkout", "-q", "--detach", commitSha]);
    if (checkout.code !== 0) {
      // git refuses some unsafe paths itself (`..`, `.git` and its NTFS/HFS spellings).
      const invalid = /invalid path '(.*)'/.exec(checkout.stderr);
      if (invalid)
        throw new SourceRejection(
          "traversal",
          "The repository contains a path git refuses to check out",
          undefined,
          invalid[1],
        );
      throw classify(checkout.stderr);
    }
    await rm(gitDir, { recursive: true, force: true });
    return { dir: tree, commitSha, cleanup };
  } catch (err) {
    await cleanup().catch(() => undefined);
    throw err;
  }
}

// ---- policy ------------------------------------------------------------------------------

const HEX_COMMIT = /^[0-9a-fA-F]{7,40}$/;

function hostNotAllowed(why: string): SourceRejection {
  return new SourceRejection("host_not_allowed", why);
}

function isLoopback(host: string): boolean {
  // WHATWG URL has already normalised IPv4 spellings (127.1, 0x7f.0.0.1) and bracketed IPv6.
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Returns the URL git is given: the WHATWG serialisation, so git and this check read the same host. */
export function checkUrl(raw: string, allowedHosts: string[], allowLocal: boolean): { href: string; local: boolean } {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw hostNotAllowed("repo_url must be an absolute https URL");
  }
  if (u.protocol === "file:") {
    if (!allowLocal) throw hostNotAllowed("file:// sources are not enabled on this server");
    if (u.hostname !== "" && u.hostname !== "localhost") throw hostNotAllowed("file:// URLs must name a local path");
    return { href: `file://${u.pathname}`, local: true };
  }
  if (u.protocol !== "https:" && u.protocol !== "http:")
    throw hostNotAllowed(`The ${u.protocol.replace(/:$/, "")} scheme is not allowed; use https`);
  const host = u.hostname.toLowerCase();
  const local = isLoopback(host);
  if (local) {
    if (!allowLocal) throw hostNotAllowed("Loopback sources are not enabled on this server");
  } else if (u.protocol !== "https:") {
    throw hostNotAllowed("Only https sources are allowed");
  } else if (!allowedHosts.some((h) => h.toLowerCase() === host) || u.port !== "") {
    throw hostNotAllowed(`The host ${host}${u.port ? `:${u.port}` : ""} is not on the allow-list`);
  }
  if (u.username !== "" || u.password !== "") {
    throw new SourceRejection(
      "private_source_unsupported",
      "repo_url carries credentials; only public repositories are supported and credentials are never sent",
    );
  }
  u.hash = "";
  return { href: u.href, local };
}

/** git check-ref-format rules (one-level names allowed), or a 7..40 hex commit id. */
export function checkRef(ref: string): void {
  const bad = (why: string) =>
    new SourceRejection("ref_not_found", `The ref ${JSON.stringify(ref.slice(0, 64))} ${why}`);
  if (ref.length < 1 || ref.length > 256) throw bad("must be 1..256 characters");
  if (ref.startsWith("-")) throw bad("must not start with '-'");
  if (HEX_COMMIT.test(ref)) return;
  if (
    [...ref].some((c) => c <= " " || c === "\x7f") ||
    /[~^:?*[\\]/.test(ref) ||
    ref.includes("..") ||
    ref.includes("@{") ||
    ref === "@" ||
    ref.startsWith("/") ||
    ref.endsWith("/") ||
    ref.endsWith(".") ||
    ref.includes("//") ||
    ref.split("/").some((c) => c.startsWith(".") || c.endsWith(".lock"))
  ) {
    throw bad("is not a valid git ref name");
  }
}

// ---- running git -------------------------------------------------------------------------

type TCtx = { env: Record<string, string>; started: number; timeoutMs: number; allowLocal: boolean };
type TRun = { code: number | null; stdout: string; stderr: string };

const PASS_THROUGH = ["PATH", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE"];
const PROXY_VARS = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"];

function gitEnv(home: string, local: boolean): Record<string, string> {
  const env: Record<string, string> = {};
  // Proxies and CA bundles are the operator's network settings; a loopback source bypasses proxies.
  for (const k of local ? PASS_THROUGH : [...PASS_THROUGH, ...PROXY_VARS]) {
    const v = process.env[k];
    if (v) env[k] = v;
  }
  env.PATH ??= "/usr/bin:/bin";
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    LC_ALL: "C",
    LANG: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/true",
    SSH_ASKPASS: "/bin/true",
    GCM_INTERACTIVE: "never",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_PROTOCOL_FROM_USER: "0",
  };
}

function configArgs(allowLocal: boolean): string[] {
  const cfg = [
    "protocol.allow=never",
    "protocol.https.allow=always",
    "http.followRedirects=false",
    "core.symlinks=true",
    "credential.helper=",
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "fetch.writeCommitGraph=false",
    "init.defaultBranch=main",
    "advice.detachedHead=false",
  ];
  if (allowLocal) cfg.push("protocol.http.allow=always", "protocol.file.allow=always");
  return cfg.flatMap((c) => ["-c", c]);
}

const STDERR_KEEP = 16 * 1024;

/** Runs git in its own process group; at the deadline the whole group is killed. */
function runGit(ctx: TCtx, args: string[]): Promise<TRun> {
  const remaining = ctx.started + ctx.timeoutMs - Date.now();
  if (remaining <= 0) return Promise.reject(timeoutRejection(ctx));
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...configArgs(ctx.allowLocal), ...args], {
      env: ctx.env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d: Buffer) => {
      stdout = (stdout + d.toString("utf8")).slice(-STDERR_KEEP);
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString("utf8")).slice(-STDERR_KEEP);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, remaining);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    // `close` waits for every holder of the pipes (git-remote-https included) to be gone.
    child.on("close", (code) => {
      clearTimeout(timer);
      if (timedOut) reject(timeoutRejection(ctx));
      else resolve({ code, stdout, stderr });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function timeoutRejection(ctx: TCtx): SourceRejection {
  const actual = Date.now() - ctx.started;
  return new SourceRejection("fetch_timeout", `Fetching the source took longer than ${ctx.timeoutMs} ms`, {
    actual,
    limit: ctx.timeoutMs,
  });
}

function must(r: TRun): void {
  if (r.code !== 0) throw new Error(`git failed locally: ${gitMessage(r.stderr)}`);
}

const PRIVATE =
  /authentication failed|could not read (username|password)|terminal prompts disabled|returned error: 40[134]|repository '.*' not found|repository not found/i;
const NO_REF = /couldn't find remote ref|not our ref|unadvertised object|invalid refspec|no such remote ref/i;

/** Maps git's stderr (LC_ALL=C) to a rejection code; see the module comment for 404. */
export function classify(stderr: string): SourceRejection {
  const line = gitMessage(stderr);
  if (PRIVATE.test(stderr)) {
    return new SourceRejection(
      "private_source_unsupported",
      `The repository is private, missing, or asks for credentials (only public repositories are supported): ${line}`,
    );
  }
  if (NO_REF.test(stderr))
    return new SourceRejection("ref_not_found", `The ref was not found in the repository: ${line}`);
  return new SourceRejection("fetch_failed", `git fetch failed: ${line}`);
}

/** git's first `fatal:` line (the cause; later ones are boilerplate), else its last line. */
function gitMessage(stderr: string): string {
  const lines = stderr
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter(Boolean);
  const line = lines.find((l) => l.startsWith("fatal:")) ?? lines[lines.length - 1] ?? "no output";
  // URLs never carry credentials here (rejected above), but scrub any userinfo git might echo.
  return line.replace(/\/\/[^/\s@]*@/g, "//").slice(0, 300);
}
