import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { openApiJson } from "@/server/http/openapi";

/**
 * Every response a test receives through the HTTP layer is checked against
 * the published document (/v1/openapi.json): the operation must exist, the
 * status must be listed, and a JSON body must match the listed schema.
 * Schemas are compiled once per process (per test file).
 */
type TOperation = { template: string; re: RegExp; params: number; method: string; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };

let state: { ops: TOperation[]; ajv: Ajv2020; compiled: Map<string, ValidateFunction> } | null = null;

function load() {
  if (state) return state;
  const doc = JSON.parse(openApiJson()) as { paths: Record<string, Record<string, { responses?: TOperation["responses"] }>> };
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(doc, "openapi");
  const ops: TOperation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+");
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== "object" || !op.responses) continue;
      ops.push({ template, re: new RegExp(`^${pattern}$`), params: (template.match(/\{/g) ?? []).length, method: method.toUpperCase(), responses: op.responses });
    }
  }
  // Literal segments win over parameters (`/deployments/{dep}:stop` before `/deployments/{dep}`).
  ops.sort((a, b) => a.params - b.params || b.template.length - a.template.length);
  state = { ops, ajv, compiled: new Map() };
  return state;
}

const escapePointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** The mismatch, in words, or null when the response is what the document says. */
export function responseMismatch(method: string, path: string, status: number, contentType: string | null, body: unknown): string | null {
  const { ops, ajv, compiled } = load();
  const pathname = path.split("?")[0]!;
  const op = ops.find((o) => o.method === method.toUpperCase() && o.re.test(pathname));
  // An unknown route is not an operation: its answer is a 404 problem, which is all a client may rely on.
  if (!op) return status === 404 && (contentType ?? "").startsWith("application/problem+json") ? null : `${method} ${pathname}: no such operation in /v1/openapi.json`;
  const declared = op.responses[String(status)] ?? op.responses.default;
  if (!declared) return `${method} ${op.template}: status ${status} is not listed (listed: ${Object.keys(op.responses).join(", ")})`;
  if (!declared.content || body === undefined) return null;
  const media = (contentType ?? "").split(";")[0]!.trim();
  const entry = declared.content[media];
  if (!entry) return `${method} ${op.template} ${status}: media type ${media || "(none)"} is not listed (listed: ${Object.keys(declared.content).join(", ")})`;
  if (!entry.schema) return null;
  const key = `openapi#/paths/${escapePointer(op.template)}/${op.method.toLowerCase()}/responses/${status in op.responses ? status : "default"}/content/${escapePointer(media)}/schema`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.getSchema(key);
    if (!validate) return `${method} ${op.template} ${status}: schema ${key} does not compile`;
    compiled.set(key, validate);
  }
  if (validate(body)) return null;
  const e = validate.errors?.[0];
  return `${method} ${op.template} ${status}: body does not match the document at ${e?.instancePath || "/"}: ${e?.message} ${e?.params ? JSON.stringify(e.params) : ""}`;
}
