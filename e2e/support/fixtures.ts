import { test as base, expect, type APIRequestContext, type APIResponse } from "@playwright/test";
import { createCapstanClient, type CapstanClient } from "@capstan/client";
import { createResponseValidator, type TResponseValidator } from "../../test/support/openapi-validator";

/**
 * The e2e suite's `test`: every response that goes through Capstan's HTTP
 * API during a test is checked against the /v1/openapi.json the server
 * serves (operation, status, media type, body, declared headers; compiled
 * once per worker), exactly as in the integration suite:
 * - `request` (Playwright's API client): a mismatch throws at the call;
 * - `page`: the browser's own /v1, /.well-known and health responses
 *   (uploads, evidence downloads...); a mismatch fails the test at its end;
 * - `capstan`: the generated client (@capstan/client) with the same check,
 *   for setup steps (`capstan` unauthenticated, `capstanWith(token)`).
 * Specs import { test, expect } from here, never from @playwright/test (eslint).
 */
const API_PATH = /^\/(v1\/|\.well-known\/|healthz$|readyz$)/;

type TFixtures = {
  /** The generated client, unauthenticated, each response checked. */
  capstan: CapstanClient;
  /** The same with a bearer token. */
  capstanWith: (token: string) => CapstanClient;
};
type TWorkerFixtures = { apiValidator: TResponseValidator };

function headersOf(res: APIResponse): Headers {
  const h = new Headers();
  for (const { name, value } of res.headersArray()) h.append(name, value);
  return h;
}

function failure(mismatch: string): Error {
  return new Error(`The response is not what /v1/openapi.json documents: ${mismatch}`);
}

/** The APIRequestContext with each response checked; a mismatch throws where the call was made. */
function checkedRequest(request: APIRequestContext, validator: TResponseValidator): APIRequestContext {
  const METHODS: Record<string, string> = {
    get: "GET",
    post: "POST",
    put: "PUT",
    patch: "PATCH",
    delete: "DELETE",
    head: "HEAD",
  };
  return new Proxy(request, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== "string" || typeof value !== "function" || !(prop in METHODS || prop === "fetch"))
        return value;
      return async (url: string, options?: { method?: string }) => {
        const res = (await value.call(target, url, options)) as APIResponse;
        const method = prop === "fetch" ? (options?.method ?? "GET").toUpperCase() : METHODS[prop]!;
        const path = new URL(res.url()).pathname + new URL(res.url()).search;
        if (API_PATH.test(new URL(res.url()).pathname)) {
          const text = method === "HEAD" ? "" : (await res.body()).toString("utf8");
          const mismatch = validator.mismatch({ method, path, status: res.status(), headers: headersOf(res), text });
          if (mismatch) throw failure(mismatch);
        }
        return res;
      };
    },
  });
}

export const test = base.extend<TFixtures, TWorkerFixtures>({
  apiValidator: [
    async ({ playwright }, use, workerInfo) => {
      const baseURL = workerInfo.project.use.baseURL!;
      const ctx = await playwright.request.newContext({ baseURL });
      const res = await ctx.get("/v1/openapi.json");
      if (res.status() !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status()}`);
      const validator = createResponseValidator(await res.json());
      await ctx.dispose();
      await use(validator);
    },
    { scope: "worker" },
  ],

  request: async ({ request, apiValidator }, use) => {
    await use(checkedRequest(request, apiValidator));
  },

  page: async ({ page, apiValidator, baseURL }, use) => {
    const origin = new URL(baseURL!).origin;
    const pending: Array<Promise<string | null>> = [];
    page.on("response", (res) => {
      const url = new URL(res.url());
      if (url.origin !== origin || !API_PATH.test(url.pathname)) return;
      const method = res.request().method();
      pending.push(
        (async () => {
          const text = method === "HEAD" || res.status() === 204 ? "" : await res.text().catch(() => "");
          const headers = new Headers(await res.allHeaders());
          return apiValidator.mismatch({
            method,
            path: url.pathname + url.search,
            status: res.status(),
            headers,
            text,
          });
        })(),
      );
    });
    await use(page);
    const mismatches = (await Promise.all(pending)).filter((m): m is string => m !== null);
    expect(mismatches, "responses the browser received that /v1/openapi.json does not describe").toEqual([]);
  },

  capstanWith: async ({ baseURL, apiValidator }, use) => {
    const make = (token?: string) =>
      createCapstanClient({
        baseUrl: baseURL!,
        ...(token ? { token } : {}),
        middleware: [
          {
            async onResponse({ request, response }) {
              const url = new URL(request.url);
              const mismatch = apiValidator.mismatch({
                method: request.method,
                path: url.pathname + url.search,
                status: response.status,
                headers: response.headers,
                text: await response.clone().text(),
              });
              if (mismatch) throw failure(mismatch);
              return response;
            },
          },
        ],
      });
    await use((token: string) => make(token));
  },

  capstan: async ({ capstanWith }, use) => {
    await use(capstanWith(""));
  },
});

export { expect };
