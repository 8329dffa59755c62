import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * Checks one HTTP response against an OpenAPI 3.1 document: the operation
 * must exist, the status be listed, the media type be listed (exactly, or a
 * `type/*` or `*\/*` range), a JSON body match the listed schema, and the
 * declared headers be present when required and match their schema when
 * sent. Schemas compile on first use and are kept (once per validator).
 * No server imports: the integration suite feeds it the in-process document,
 * the e2e suite the one the server serves.
 */
type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type TResponseObject = {
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, { required?: boolean; schema?: unknown }>;
};
type TOperation = {
  template: string;
  re: RegExp;
  params: number;
  method: string;
  responses: Record<string, TResponseObject>;
};

export type TObservedResponse = {
  method: string;
  /** Path with optional query string (`/v1/workspaces?limit=2`) or a full URL. */
  path: string;
  status: number;
  headers: Headers;
  /** The body as text ("" when none). */
  text: string;
};

export type TResponseValidator = {
  /** The mismatch in words (operation, status, first error), or null when the response is what the document says. */
  mismatch(r: TObservedResponse): string | null;
  /** The operations of the document, `METHOD template` (for coverage reports). */
  operations(): string[];
};

/**
 * The title of each status a problem document may carry (the same table as
 * src/server/platform/errors.ts, written out again on purpose: this file
 * imports nothing from the server). A problem+json body's `status` must be
 * the response's own status and its `title` this one.
 */
export const PROBLEM_TITLES: Readonly<Record<number, string>> = {
  400: "Bad request",
  401: "Unauthenticated",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  410: "Gone",
  413: "Payload too large",
  415: "Unsupported media type",
  422: "Validation failed",
  429: "Rate limited",
  500: "Internal error",
  502: "Bad gateway",
  503: "Service unavailable",
  504: "Gateway timeout",
};

/**
 * A problem document that disagrees with its response, in words, or null.
 * Any response whose media type is application/problem+json, documented
 * operation or not (a surface's refusal, an unknown route's 404).
 */
export function problemMismatch(
  r: Pick<TObservedResponse, "method" | "path" | "status" | "headers" | "text">,
): string | null {
  const media = (r.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (media !== "application/problem+json") return null;
  const where = `${r.method.toUpperCase()} ${new URL(r.path, "http://x").pathname} ${r.status}`;
  let body: unknown;
  try {
    body = JSON.parse(r.text);
  } catch {
    return `${where}: the problem document is not JSON`;
  }
  if (!body || typeof body !== "object" || Array.isArray(body))
    return `${where}: the problem document is not an object`;
  const { status, title } = body as { status?: unknown; title?: unknown };
  if (status !== r.status)
    return `${where}: the problem document says status ${JSON.stringify(status)} but the response is ${r.status}`;
  const expected = PROBLEM_TITLES[r.status];
  if (!expected)
    return `${where}: no problem title is defined for status ${r.status} (add it to PROBLEM_TITLES and errors.ts STATUS_TITLES)`;
  if (title !== expected)
    return `${where}: the problem title ${JSON.stringify(title)} does not match status ${r.status} ("${expected}")`;
  return null;
}

const escapePointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
const isJsonMedia = (media: string) => media === "application/json" || media.endsWith("+json");

export function createResponseValidator(doc: TJson): TResponseValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(doc, "openapi");
  const compiled = new Map<string, ValidateFunction>();
  const ops: TOperation[] = [];
  for (const [template, item] of Object.entries<TJson>(doc.paths ?? {})) {
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+");
    for (const [method, op] of Object.entries<TJson>(item)) {
      if (!op || typeof op !== "object" || !op.responses) continue;
      ops.push({
        template,
        re: new RegExp(`^${pattern}$`),
        params: (template.match(/\{/g) ?? []).length,
        method: method.toUpperCase(),
        responses: op.responses,
      });
    }
  }
  // Literal segments win over parameters (`/deployments/{dep}:stop` before `/deployments/{dep}`).
  ops.sort((a, b) => a.params - b.params || b.template.length - a.template.length);

  function validator(pointer: string): ValidateFunction | string {
    let v = compiled.get(pointer);
    if (!v) {
      try {
        v = ajv.getSchema(pointer);
      } catch (err) {
        return `schema ${pointer} does not compile: ${(err as Error).message}`;
      }
      if (!v) return `schema ${pointer} does not resolve`;
      compiled.set(pointer, v);
    }
    return v;
  }

  function firstError(v: ValidateFunction): string {
    const e = v.errors?.[0];
    return `${e?.instancePath || "/"}: ${e?.message}${e?.params ? " " + JSON.stringify(e.params) : ""}`;
  }

  function mismatch(r: TObservedResponse): string | null {
    const method = r.method.toUpperCase();
    const pathname = new URL(r.path, "http://x").pathname;
    const contentType = r.headers.get("content-type");
    const media = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
    const problem = problemMismatch(r);
    if (problem) return problem;
    const op = ops.find((o) => o.method === method && o.re.test(pathname));
    if (!op) {
      // An unknown route or method is not an operation: a 404/405 problem is all a client may rely on.
      if ((r.status === 404 || r.status === 405) && media === "application/problem+json") return null;
      return `${method} ${pathname}: no such operation in the document (status ${r.status})`;
    }
    const name = `${method} ${op.template} ${r.status}`;
    const key =
      String(r.status) in op.responses
        ? String(r.status)
        : op.responses[`${String(r.status)[0]}XX`]
          ? `${String(r.status)[0]}XX`
          : "default";
    const declared = op.responses[key];
    if (!declared)
      return `${method} ${op.template}: status ${r.status} is not listed (listed: ${Object.keys(op.responses).join(", ")})`;
    const base = `openapi#/paths/${escapePointer(op.template)}/${method.toLowerCase()}/responses/${key}`;

    for (const [header, spec] of Object.entries(declared.headers ?? {})) {
      const value = r.headers.get(header);
      if (value === null) {
        if (spec.required) return `${name}: required header ${header} is missing`;
        continue;
      }
      if (!spec.schema) continue;
      const v = validator(`${base}/headers/${escapePointer(header)}/schema`);
      if (typeof v === "string") return `${name}: ${v}`;
      if (!v(value)) return `${name}: header ${header} does not match the document at ${firstError(v)}`;
    }

    if (!declared.content) {
      return r.text.length ? `${name}: a body (${media || "no content type"}) where the document declares none` : null;
    }
    if (!r.text.length)
      return `${name}: an empty body where the document declares ${Object.keys(declared.content).join(", ")}`;
    const listed = Object.keys(declared.content);
    const entryKey =
      listed.find((m) => m.toLowerCase() === media) ??
      listed.find((m) => m.toLowerCase() === `${media.split("/")[0]}/*`) ??
      listed.find((m) => m === "*/*");
    if (!entryKey) return `${name}: media type ${media || "(none)"} is not listed (listed: ${listed.join(", ")})`;
    // Raw bytes (a range such as */*, or a non-JSON type): the media type is all a client may rely on.
    if (!isJsonMedia(media) || !isJsonMedia(entryKey.toLowerCase()) || !declared.content[entryKey]!.schema) return null;
    let body: unknown;
    try {
      body = JSON.parse(r.text);
    } catch {
      return `${name}: the body is not JSON although the media type is ${media}`;
    }
    const v = validator(`${base}/content/${escapePointer(entryKey)}/schema`);
    if (typeof v === "string") return `${name}: ${v}`;
    return v(body) ? null : `${name}: body does not match the document at ${firstError(v)}`;
  }

  return { mismatch, operations: () => ops.map((o) => `${o.method} ${o.template}`) };
}
