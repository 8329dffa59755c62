import createClient, { type Client, type ClientOptions, type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "./schema";

/**
 * The typed Capstan client: openapi-fetch over the types openapi-typescript
 * generates from /v1/openapi.json (./schema.d.ts; `npm run client:generate`
 * regenerates it, CI fails when it is stale). Paths, parameters, bodies and
 * responses are checked by the compiler:
 *
 *   const capstan = createCapstanClient({ baseUrl: "https://capstan.example", token });
 *   const { data, error } = await capstan.GET("/v1/workspaces", { params: { query: { limit: 10 } } });
 *
 * `data` is the documented success body, `error` the problem document.
 */
export type { components, operations, paths };
export type CapstanClient = Client<paths>;
export type TProblem = components["schemas"]["Problem"];

export type TCapstanClientOptions = {
  /** Where Capstan answers, e.g. https://capstan.example (no /v1). */
  baseUrl: string;
  /** A bearer token (personal API token, or a Bridge token for the capability calls), or a function that yields one per request. */
  token?: string | (() => string | Promise<string>);
  /** A custom fetch (tests route it in-process; default globalThis.fetch). */
  fetch?: ClientOptions["fetch"];
  /** Extra middleware (e.g. logging, response checks), applied after the bearer token. */
  middleware?: Middleware[];
};

export function createCapstanClient(opts: TCapstanClientOptions): CapstanClient {
  const client = createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ""),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const token = opts.token;
  if (token !== undefined) {
    client.use({
      async onRequest({ request }) {
        if (!request.headers.has("authorization"))
          request.headers.set("authorization", `Bearer ${typeof token === "function" ? await token() : token}`);
        return request;
      },
    });
  }
  for (const m of opts.middleware ?? []) client.use(m);
  return client;
}

/** The error of a call that did not succeed: the status and the problem document (or OAuth error). */
export class CapstanError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const b = body as { detail?: string; error_description?: string; code?: string; error?: string } | undefined;
    super(`Capstan answered ${status}: ${b?.code ?? b?.error ?? ""} ${b?.detail ?? b?.error_description ?? ""}`.trim());
    this.name = "CapstanError";
  }
}

/** `data` of a call, or a CapstanError with its status and problem document. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw new CapstanError(response.status, error);
  return data as T;
}

/**
 * A Bridge token for a service identity (POST /v1/oauth/token,
 * client_credentials, credentials in the form body). Use it as the token of
 * a second client for the /v1/capabilities/... operations.
 */
export async function bridgeToken(client: CapstanClient, clientId: string, clientSecret: string): Promise<string> {
  const result = await must(
    client.POST("/v1/oauth/token", {
      body: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret },
      bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }),
  );
  return result.access_token;
}
