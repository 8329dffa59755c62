import { randomBytes } from "node:crypto";
import { createApiToken } from "@/server/domain/identity/tokens.service";
import { bootstrapPlatform, createUser } from "@/server/domain/identity/users.service";
import { handleRest } from "@/server/http/rest-handler";
import { getDb } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { ensureSigningKey } from "@/server/domain/signing-keys/jwt.service";
import { assertDocumented } from "./openapi-responses";
import { deploymentBridge } from "@/server/bridge/deployment-bridge";
import { provideDeploymentBridge } from "@/server/domain/deployments/lifecycle";

// The tests' composition root, as boot.ts is the server's: deployments applied here reach the real Bridge.
provideDeploymentBridge(deploymentBridge);

/**
 * Black-box helpers for integration tests: every call goes through the real
 * `/v1` REST boundary (`handleRest`) in-process, exactly as the Next.js route
 * hands it a Request. No vitest imports here: test/support/app-server.ts
 * reuses bootApp() in a plain node process.
 */

export const BASE_URL = "http://localhost:3000";

/** Opens (and migrates) the database, ensures a signing key and bootstraps ws_platform. No workers. */
export async function bootApp(): Promise<void> {
  await getDb();
  await ensureSigningKey();
  await bootstrapPlatform(newId("evt"));
}

export type TApiOptions = {
  token?: string;
  /** JSON-encoded with content-type application/json. */
  body?: unknown;
  /** Sent as is; no content-type is added (a string body then defaults to text/plain). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TApiResult<T = any> = {
  status: number;
  headers: Headers;
  /** Parsed body when the body is non-empty JSON, else undefined. */
  json: T;
  text: string;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function api<T = any>(method: string, path: string, opts: TApiOptions = {}): Promise<TApiResult<T>> {
  const headers = new Headers();
  if (opts.token !== undefined) headers.set("authorization", `Bearer ${opts.token}`);
  let body: string | Uint8Array | undefined;
  if (opts.rawBody !== undefined) {
    body = opts.rawBody;
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers.set("content-type", "application/json");
  }
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers.set(k, v);
  const req = new Request(BASE_URL + path, { method, headers, body: body as BodyInit | undefined });
  const res = await handleRest(req);
  const text = await res.text();
  let json: unknown = undefined;
  if (text.length) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  assertDocumented({ method, path, status: res.status, headers: res.headers, text });
  return { status: res.status, headers: res.headers, json: json as T, text };
}

export type TTestUser = { userId: string; email: string; token: string };

export function uniqueEmail(tag = "user"): string {
  return `${tag}-${randomBytes(6).toString("hex")}@example.test`;
}

/** A fresh user with a 1-hour personal API token (audience control). */
export async function makeUser(email?: string): Promise<TTestUser> {
  const user = await createUser(
    { userId: null, correlationId: newId("evt") },
    { email: email ?? uniqueEmail(), name: "Test user", password: "correct horse battery staple" },
  );
  const { token } = await createApiToken(user.id, "test", 3600);
  return { userId: user.id, email: user.email, token };
}

export type TTestWorkspace = { id: string; name: string; role: string; plan: string; [k: string]: unknown };

/** Creates a workspace through POST /v1/workspaces (the caller becomes owner). */
export async function makeWorkspace(token: string, name?: string): Promise<TTestWorkspace> {
  const r = await api<TTestWorkspace>("POST", "/v1/workspaces", {
    token,
    body: { name: name ?? `ws ${randomBytes(4).toString("hex")}` },
  });
  if (r.status !== 201) throw new Error(`makeWorkspace: expected 201, got ${r.status}: ${r.text}`);
  return r.json;
}
