import { appendFileSync } from "node:fs";
import { openApiJson } from "@/server/http/openapi";
import { createResponseValidator, type TObservedResponse, type TResponseValidator } from "./openapi-validator";

/**
 * Every response an integration test receives through the HTTP layer (api(),
 * the checked handlers of ./handlers.ts, checkedFetch) is checked against the
 * published document (/v1/openapi.json, built in-process): see
 * ./openapi-validator.ts for what is checked. A mismatch throws in the test
 * that caused it; CAPSTAN_OPENAPI_REPORT=<file> collects mismatches instead.
 * Schemas compile once per process (per test file).
 */
let validator: TResponseValidator | null = null;
const load = () => (validator ??= createResponseValidator(JSON.parse(openApiJson())));

/** The mismatch, in words, or null when the response is what the document says. */
export function responseMismatch(r: TObservedResponse): string | null {
  return load().mismatch(r);
}

/** Throws (or, with CAPSTAN_OPENAPI_REPORT, records) when the response is not what the document says. */
export function assertDocumented(r: TObservedResponse): void {
  const mismatch = responseMismatch(r);
  if (!mismatch) return;
  if (process.env.CAPSTAN_OPENAPI_REPORT) appendFileSync(process.env.CAPSTAN_OPENAPI_REPORT, mismatch + "\n");
  else throw new Error(`The response is not what /v1/openapi.json documents: ${mismatch}`);
}

/** Checks a Response (read from a clone: the caller can still read it) and returns it. */
export async function checked(method: string, url: string, res: Response): Promise<Response> {
  const text = await res.clone().text();
  assertDocumented({ method, path: url, status: res.status, headers: res.headers, text });
  return res;
}

/** fetch, with the response checked against the document (for tests that talk to a spawned server). */
export async function checkedFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  return checked(init?.method ?? "GET", String(input), res);
}
