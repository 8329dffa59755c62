import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import { childrenOf } from "./proc";

/**
 * What the bench stands up: the production build (reused when newer than the
 * sources), `npm start` (scripts/start.mjs) on a fresh database, the peers
 * process (provider + S3) and the Portkey gateway, and the seed through the
 * REST API (workspace, product with a confirmed contract, credentials,
 * bindings, service identity, bridge token).
 */
export const ROOT = path.resolve(import.meta.dirname, "..", "..");

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

function newestMtime(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = 0;
  for (const e of readdirSync(p)) if (e !== "generated") max = Math.max(max, newestMtime(path.join(p, e)));
  return max;
}

/**
 * The production build, rebuilt when a source it is built from is newer than
 * .next/BUILD_ID (BENCH_BUILD=always|never overrides).
 */
export function ensureBuild(): void {
  const mode = process.env.BENCH_BUILD ?? "auto";
  const buildId = path.join(ROOT, ".next", "BUILD_ID");
  const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  const sources = Math.max(
    ...["src", "next.config.mjs", "package-lock.json", "prisma/schema.prisma", "tsconfig.json"].map((p) =>
      newestMtime(path.join(ROOT, p)),
    ),
  );
  if (mode === "never" || (mode === "auto" && built > sources)) {
    console.log(
      `bench: reusing the production build (.next/BUILD_ID ${built ? "newer than the sources" : "missing; npm start will build"})`,
    );
    return;
  }
  console.log("bench: building (npm run build)");
  const r = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) throw new Error("npm run build failed");
}

/**
 * The environment `npm start` gets in every bench: production mode on a fresh
 * database (`databaseUrl`), a data folder of its own, fresh keys, the
 * bootstrap admin the bench issues its owner token for, loopback sources,
 * providers and webhook receivers allowed, and the Bridge's per-identity
 * rate limit out of the way (the bench measures the Bridge, not its limiter).
 */
export function benchServerEnv(o: {
  databaseUrl: string;
  dataDir: string;
  port: number;
  extra?: Record<string, string>;
}): Record<string, string> {
  const base = `http://127.0.0.1:${o.port}`;
  return {
    ...(process.env as Record<string, string>),
    NODE_ENV: "production",
    PORT: String(o.port),
    HOST: "127.0.0.1",
    DATABASE_URL: o.databaseUrl,
    CAPSTAN_DATA_DIR: o.dataDir,
    CAPSTAN_MASTER_KEY: randomBytes(32).toString("base64"),
    CAPSTAN_PUBLIC_URL: base,
    NEXTAUTH_URL: base,
    NEXTAUTH_SECRET: randomBytes(24).toString("hex"),
    BOOTSTRAP_ADMIN_EMAIL: "bench@example.test",
    BOOTSTRAP_ADMIN_PASSWORD: "bench-password-123",
    SOURCE_ALLOW_LOCAL: "1",
    CAPSTAN_PROVIDER_ALLOW_PRIVATE: "1",
    CAPSTAN_WEBHOOK_ALLOW_PRIVATE: "1",
    CAPSTAN_BRIDGE_RATE_PER_SEC: "1000000",
    CAPSTAN_BRIDGE_BURST: "1000000",
    ...o.extra,
  };
}

export type TPeers = {
  provider: { baseUrl: string; apiKey: string };
  s3: { endpoint: string; region: string; bucket: string; accessKeyId: string; secretAccessKey: string };
  /** The loopback webhook receiver (answers 204). */
  webhookUrl: string;
  pid: number;
  child: ChildProcess;
};

/** bench/lib/peers.ts in its own process. */
export async function startPeers(): Promise<TPeers> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "peers.ts")], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`peers exited ${code}`)));
  });
  return { ...(JSON.parse(line) as Omit<TPeers, "child">), child };
}

/** @portkey-ai/gateway (devDependency) as a child process, headless, production mode. */
export async function startPortkey(logFile: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const entry = path.join(ROOT, "node_modules", "@portkey-ai", "gateway", "build", "start-server.js");
  const child = spawn(process.execPath, [entry, `--port=${port}`, "--headless"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = createWriteStream(logFile);
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  await waitFor(
    async () => {
      const r = await fetch(`http://127.0.0.1:${port}/`).catch(() => null);
      return r !== null;
    },
    30_000,
    "the Portkey gateway did not start",
  );
  return { port, child };
}

export async function waitFor(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error(what);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * `npm start` (scripts/start.mjs, which runs scripts/server.mjs as its child);
 * returns the server process's pid too. With `profDir` (BENCH_CPU_PROF) the
 * server is what start.mjs runs, started directly under `node --cpu-prof`
 * (Node refuses that flag in NODE_OPTIONS, so start.mjs cannot pass it on).
 */
export async function startCapstan(
  env: Record<string, string>,
  logFile: string,
  base: string,
  profDir: string | null,
): Promise<{ child: ChildProcess; serverPid: number }> {
  const log = createWriteStream(logFile);
  const args = profDir
    ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`, path.join(ROOT, "scripts", "server.mjs")]
    : [path.join(ROOT, "scripts", "start.mjs")];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  await waitFor(
    () =>
      fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      ),
    600_000,
    `the server did not become ready (log: ${logFile})`,
  );
  const serverPid = profDir ? child.pid : childrenOf(child.pid!).find((pid) => pid > 0);
  if (!serverPid) throw new Error("could not find the server process under npm start");
  return { child, serverPid };
}

export function stopGroup(child: ChildProcess | undefined): void {
  if (!child?.pid) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    child.kill("SIGTERM");
  }
}

export type TRest = <T = any>(method: string, p: string, body?: unknown) => Promise<T>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function restClient(base: string, token: string): TRest {
  return async (method, p, body) => {
    const r = await fetch(base + p, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const json = await r.json().catch(() => null);
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
}

export type TSeed = { ws: string; productId: string; svc: { id: string; secret: string } };

/** Workspace, product (local git repo, frozen by the server's worker), contract, bindings, service identity: all through REST. */
export async function seed(rest: TRest, dataDir: string, peers: TPeers): Promise<TSeed> {
  const repo = path.join(dataDir, "repo");
  mkdirSync(repo);
  writeFileSync(
    path.join(repo, "package.json"),
    JSON.stringify({ name: "bench", version: "1.0.0", scripts: { start: "node server.js" } }),
  );
  writeFileSync(
    path.join(repo, "package-lock.json"),
    JSON.stringify({
      name: "bench",
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: { "": { name: "bench", version: "1.0.0" } },
    }),
  );
  writeFileSync(
    path.join(repo, "server.js"),
    "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n",
  );
  writeFileSync(
    path.join(repo, "capabilities.json"),
    JSON.stringify({
      capabilities: [
        {
          id: "data.kv",
          required: true,
          actions: ["get", "set"],
          scope: { prefix: "/bench", max_value_bytes: 1024, max_keys: 1000 },
          credential_owner: "platform",
          provider: { allow: ["platform"], fallback: "none" },
        },
        {
          id: "ai.generate",
          required: false,
          actions: ["generate"],
          scope: { models: ["text"], max_tokens_per_call: 64 },
          credential_owner: "workspace",
          provider: { allow: ["openai"], fallback: "none" },
        },
        {
          id: "storage.object",
          required: false,
          actions: ["read", "write"],
          scope: { prefix: "/files", max_object_bytes: 65536 },
          credential_owner: "workspace",
          provider: { allow: ["s3"], fallback: "none" },
        },
      ],
    }),
  );
  const git = (...a: string[]) =>
    execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.test", ...a], { cwd: repo });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "bench");

  const ws = (await rest("POST", "/v1/workspaces", { name: "bench" })).id as string;
  const intake = await rest("POST", `/v1/workspaces/${ws}/products`, {
    repo_url: `file://${repo}`,
    ref: "main",
    auth: { kind: "none" },
  });
  let freeze = { status: "pending", revision: { id: "" } };
  const until = Date.now() + 120_000;
  while (freeze.status === "pending") {
    if (Date.now() > until) throw new Error("the source freeze did not finish within 120 s");
    await new Promise((r) => setTimeout(r, 200));
    freeze = await rest("GET", `/v1/workspaces/${ws}/source-freezes/${intake.source_freeze_id}`);
  }
  if (freeze.status !== "frozen") throw new Error(`freeze ended ${freeze.status}`);
  await rest(
    "POST",
    `/v1/workspaces/${ws}/products/${intake.product_id}/revisions/${freeze.revision.id}/descriptor:confirm`,
    {},
  );
  const expires = new Date(Date.now() + 86_400_000).toISOString();

  const aiCred = await rest("POST", `/v1/workspaces/${ws}/credentials`, {
    secret: peers.provider.apiKey,
    provider: "openai",
    capability: "ai.generate",
    actions: ["generate"],
    scope: [],
    expires_at: expires,
  });
  await rest("POST", `/v1/workspaces/${ws}/provider-bindings`, {
    credential_id: aiCred.id,
    capability: "ai.generate",
    actions: ["generate"],
    scope: [],
    budget: { units: 1e12, unit: "tokens" },
    capability_scope: {
      id: "ai.generate",
      scope: { models: ["text"], max_tokens_per_call: 64 },
      provider_models: { text: "bench-model" },
    },
    provider_config: { base_url: peers.provider.baseUrl },
  });
  const s3Cred = await rest("POST", `/v1/workspaces/${ws}/credentials`, {
    secret: `${peers.s3.accessKeyId}:${peers.s3.secretAccessKey}`,
    provider: "s3",
    capability: "storage.object",
    actions: ["read", "write"],
    scope: [],
    expires_at: expires,
  });
  await rest("POST", `/v1/workspaces/${ws}/provider-bindings`, {
    credential_id: s3Cred.id,
    capability: "storage.object",
    actions: ["read", "write"],
    scope: [],
    budget: { units: 1e12, unit: "tokens" },
    capability_scope: { id: "storage.object", scope: { prefix: "/", max_object_bytes: 1_000_000 } },
    provider_config: { endpoint: peers.s3.endpoint, bucket: peers.s3.bucket, region: peers.s3.region },
  });
  const svc = await rest("POST", `/v1/workspaces/${ws}/service-identities`, {
    name: "bench",
    product_id: intake.product_id,
  });
  return { ws, productId: intake.product_id, svc: { id: svc.id, secret: svc.client_secret } };
}

/** A bridge token from POST /v1/oauth/token (client_credentials); they live 10 minutes, so each scenario takes a fresh one. */
export async function bridgeToken(base: string, svc: { id: string; secret: string }): Promise<string> {
  const r = await fetch(`${base}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: svc.id,
      client_secret: svc.secret,
    }).toString(),
  });
  const j = (await r.json()) as { access_token?: string };
  if (!j.access_token) throw new Error(`token endpoint: ${r.status} ${JSON.stringify(j)}`);
  return j.access_token;
}
