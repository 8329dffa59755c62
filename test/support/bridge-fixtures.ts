import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { processPendingFreezes } from "@/server/domain/source/freeze.service";
import type { TCapabilityEntry } from "@/server/domain/source/source.types";
import { handleBridge, handleOAuthToken } from "./handlers";
import { resetEnvCache } from "@/server/platform/env";
import { api, BASE_URL, bootApp, makeUser, makeWorkspace, type TApiResult, type TTestUser } from "./api";
import { randomUUID } from "node:crypto";

/**
 * Bridge test fixtures, all through the real boundaries: the product comes
 * from a local git repository with a capabilities.json (intake, freeze worker,
 * descriptor confirmation), the service identity and its bridge token from
 * the REST API and the OAuth token endpoint, credentials and bindings from
 * the REST API (pointing at a loopback OpenAI-compatible server), and
 * bridge() calls handleBridge in-process exactly as the Next.js route does.
 * No vitest imports: usable from plain node processes too.
 */

/** SOURCE_ALLOW_LOCAL (file:// repositories) and CAPSTAN_PROVIDER_ALLOW_PRIVATE (http://127.0.0.1 providers), then bootApp(). */
export async function bootBridgeApp(): Promise<void> {
  process.env.SOURCE_ALLOW_LOCAL = "1";
  process.env.CAPSTAN_PROVIDER_ALLOW_PRIVATE = "1";
  resetEnvCache();
  await bootApp();
}

// ---------------------------------------------------------------- contracts

export type TCapability = TCapabilityEntry;

export const kvCapability = (
  over: Partial<TCapability> & { scope?: Partial<{ prefix: string; max_value_bytes: number; max_keys: number }> } = {},
): TCapability => ({
  id: "data.kv",
  required: true,
  actions: ["get", "set", "delete", "list", "increment"],
  credential_owner: "platform",
  provider: { allow: ["platform"], fallback: "none" },
  ...over,
  scope: { prefix: "/app", max_value_bytes: 1024, max_keys: 100, ...over.scope },
});

export const aiCapability = (
  over: Partial<TCapability> & { scope?: Partial<{ models: string[]; max_tokens_per_call: number }> } = {},
): TCapability => ({
  id: "ai.generate",
  required: true,
  actions: ["generate"],
  credential_owner: "workspace",
  provider: { allow: ["openai"], fallback: "none" },
  ...over,
  scope: { models: ["text", "embedding"], max_tokens_per_call: 256, ...over.scope },
});

// ---------------------------------------------------------------- products

const reposRoot = mkdtempSync(path.join(os.tmpdir(), "capstan-bridge-repos-"));
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

const PKG = JSON.stringify({ name: "app", scripts: { start: "node server.js" }, engines: { node: "20.x" } });

function makeRepo(capabilities: TCapability[]): string {
  const dir = path.join(reposRoot, `repo-${++repoCount}`);
  mkdirSync(dir);
  git(dir, "init", "-q");
  const files: Record<string, string> = {
    "package.json": PKG,
    "package-lock.json": "{}",
    "server.js": "console.log(1)\n",
    "capabilities.json": JSON.stringify({ capabilities }),
  };
  for (const [rel, content] of Object.entries(files)) writeFileSync(path.join(dir, rel), content);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "init");
  return `file://${dir}`;
}

function must<T>(r: TApiResult<T>, status: number, what: string): T {
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status}: ${r.text}`);
  return r.json;
}

/** A product whose latest revision has a confirmed (ready) contract with these capabilities. */
export async function makeProduct(
  owner: TTestUser,
  ws: string,
  capabilities: TCapability[],
): Promise<{ productId: string; revisionId: string }> {
  const accepted = must(
    await api("POST", `/v1/workspaces/${ws}/products`, {
      token: owner.token,
      body: { repo_url: makeRepo(capabilities), ref: "main", auth: { kind: "none" } },
    }),
    202,
    "product intake",
  );
  type TFreeze = { status: string; revision?: { id: string } };
  let freeze: TFreeze = { status: "pending" };
  for (let i = 0; i < 30 && freeze.status === "pending"; i++) {
    await processPendingFreezes(10);
    freeze = must<TFreeze>(
      await api("GET", `/v1/workspaces/${ws}/source-freezes/${accepted.source_freeze_id}`, { token: owner.token }),
      200,
      "freeze read",
    );
  }
  if (freeze.status !== "frozen" || !freeze.revision)
    throw new Error(`freeze did not succeed: ${JSON.stringify(freeze)}`);
  const revisionId = freeze.revision.id;
  must(
    await api(
      "POST",
      `/v1/workspaces/${ws}/products/${accepted.product_id}/revisions/${revisionId}/descriptor:confirm`,
      { token: owner.token, body: {} },
    ),
    200,
    "descriptor confirm",
  );
  const contract = must(
    await api("GET", `/v1/workspaces/${ws}/revisions/${revisionId}/capability-contract`, { token: owner.token }),
    200,
    "contract read",
  );
  if (!contract.contract_hash) throw new Error(`contract is not ready: ${JSON.stringify(contract)}`);
  return { productId: accepted.product_id, revisionId };
}

// ---------------------------------------------------------------- identities and tokens

export async function makeServiceIdentity(
  owner: TTestUser,
  ws: string,
  productId: string,
): Promise<{ id: string; secret: string }> {
  const created = must(
    await api("POST", `/v1/workspaces/${ws}/service-identities`, {
      token: owner.token,
      body: { name: `bridge ${productId.slice(-6)} ${randomUUID().slice(0, 8)}`, product_id: productId },
    }),
    201,
    "service identity create",
  );
  return { id: created.id, secret: created.client_secret };
}

/** A bridge token from POST /v1/oauth/token (client_credentials, credentials in the body). */
export async function bridgeToken(clientId: string, clientSecret: string): Promise<string> {
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: clientId,
    client_secret: clientSecret,
  });
  const res = await handleOAuthToken(
    new Request(`${BASE_URL}/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    }),
  );
  const text = await res.text();
  if (res.status !== 200) throw new Error(`token endpoint: ${res.status} ${text}`);
  return (JSON.parse(text) as { access_token: string }).access_token;
}

// ---------------------------------------------------------------- credentials and bindings

export type TProviderSpec = {
  /** Provider name (the credential's provider; the contract's allow-list names it). */
  provider: string;
  baseUrl: string;
  apiKey: string;
  models?: Array<"text" | "embedding">;
  maxTokensPerCall?: number;
  providerModels?: { text?: string; embedding?: string };
};

export async function makeCredential(
  owner: TTestUser,
  ws: string,
  secret: string,
  opts: { provider?: string; capability?: string; actions?: string[] } = {},
): Promise<string> {
  const created = must(
    await api("POST", `/v1/workspaces/${ws}/credentials`, {
      token: owner.token,
      body: {
        secret,
        provider: opts.provider ?? "openai",
        capability: opts.capability ?? "ai.generate",
        actions: opts.actions ?? ["generate"],
        scope: [],
        expires_at: new Date(Date.now() + 24 * 3600_000).toISOString(),
      },
    }),
    201,
    "credential create",
  );
  return created.id;
}

/** A credential holding the provider's key and a ready ai.generate binding to its base URL; returns both ids. */
export async function addAiProvider(
  owner: TTestUser,
  ws: string,
  p: TProviderSpec,
): Promise<{ credentialId: string; bindingId: string }> {
  const credentialId = await makeCredential(owner, ws, p.apiKey, { provider: p.provider });
  const models = p.models ?? ["text", "embedding"];
  const binding = must(
    await api("POST", `/v1/workspaces/${ws}/provider-bindings`, {
      token: owner.token,
      body: {
        credential_id: credentialId,
        capability: "ai.generate",
        actions: ["generate"],
        scope: [],
        budget: { units: 1_000_000_000, unit: "tokens" },
        capability_scope: {
          id: "ai.generate",
          scope: { models, max_tokens_per_call: p.maxTokensPerCall ?? 100_000 },
          provider_models: p.providerModels ?? { text: "test-chat", embedding: "test-embed" },
        },
        provider_config: { base_url: p.baseUrl },
      },
    }),
    201,
    "binding create",
  );
  if (binding.status !== "ready") throw new Error(`binding is not ready: ${JSON.stringify(binding)}`);
  return { credentialId, bindingId: binding.id };
}

// ---------------------------------------------------------------- one call

export type TBridgeSetup = {
  owner: TTestUser;
  ws: string;
  productId: string;
  revisionId: string;
  svc: { id: string; secret: string };
  token: string;
  providers: Record<string, { credentialId: string; bindingId: string }>;
};

/**
 * Workspace (new unless given) + product with a confirmed contract + service
 * identity for it + bridge token + one credential and ready binding per
 * provider.
 */
export async function setupBridge(opts: {
  capabilities: TCapability[];
  owner?: TTestUser;
  ws?: string;
  providers?: TProviderSpec[];
}): Promise<TBridgeSetup> {
  const owner = opts.owner ?? (await makeUser());
  const ws = opts.ws ?? (await makeWorkspace(owner.token)).id;
  const { productId, revisionId } = await makeProduct(owner, ws, opts.capabilities);
  const svc = await makeServiceIdentity(owner, ws, productId);
  const token = await bridgeToken(svc.id, svc.secret);
  const providers: TBridgeSetup["providers"] = {};
  for (const p of opts.providers ?? []) providers[p.provider] = await addAiProvider(owner, ws, p);
  return { owner, ws, productId, revisionId, svc, token, providers };
}

export type TBridgeResult = TApiResult & { overheadMs: number | null };

/** POST /v1/capabilities/{capability}/{action} through handleBridge, in-process. A string body is sent as is. */
export async function bridge(
  token: string | null,
  capability: string,
  action: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<TBridgeResult> {
  const h = new Headers();
  if (token !== null) h.set("authorization", `Bearer ${token}`);
  let payload: string | undefined;
  if (typeof body === "string") {
    payload = body;
    h.set("content-type", "application/json");
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    h.set("content-type", "application/json");
  }
  for (const [k, v] of Object.entries(headers)) h.set(k, v);
  const res = await handleBridge(
    new Request(`${BASE_URL}/v1/capabilities/${capability}/${action}`, { method: "POST", headers: h, body: payload }),
    capability,
    action,
  );
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const overhead = res.headers.get("capstan-overhead-ms");
  return {
    status: res.status,
    headers: res.headers,
    json,
    text,
    overheadMs: overhead === null ? null : Number(overhead),
  };
}
