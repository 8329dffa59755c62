/**
 * The breaking-change guard's rule set: what, between the last released
 * document and the current one, can break a client written against the
 * released one (docs/decisions.md, "Breaking changes to the API document").
 * Pure functions over two OpenAPI 3.1 documents; unit-tested in
 * test/openapi-breaking.test.ts.
 *
 * 1. an operation (method + path, parameter names ignored) is removed;
 * 2. a response status of an operation is removed;
 * 3. a media type of a response or of a request body is removed;
 * 4. a response property is removed, or stops being required;
 * 5. a request property, parameter or body becomes required (newly added
 *    required ones included);
 * 6. an enum loses a value (requests: a value clients send is refused) or a
 *    `const` changes;
 * 7. a type changes: a request accepts fewer types, a response may answer
 *    types it did not;
 * 8. a public operation starts requiring credentials.
 * Adding operations, optional request fields, response fields and statuses,
 * and enum values is not breaking.
 */
type TJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
type TDirection = "request" | "response";

function resolve(doc: TJson, node: unknown, seen: Set<string> = new Set()): TJson | undefined {
  let n = node as TJson | undefined;
  while (n && typeof n === "object" && typeof n.$ref === "string") {
    if (seen.has(n.$ref) || !n.$ref.startsWith("#/")) return undefined;
    seen.add(n.$ref);
    n = n.$ref
      .slice(2)
      .split("/")
      .map((s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((o: TJson | undefined, k: string) => o?.[k], doc);
  }
  return n && typeof n === "object" ? n : undefined;
}

const typesOf = (s: TJson): string[] | null =>
  s.type === undefined ? null : (Array.isArray(s.type) ? s.type : [s.type]).map(String);
const opKey = (method: string, p: string) => `${method.toUpperCase()} ${p.replace(/\{[^}]+\}/g, "{}")}`;

function operations(doc: TJson): Map<string, { name: string; op: TJson }> {
  const out = new Map<string, { name: string; op: TJson }>();
  for (const [p, item] of Object.entries<TJson>(doc.paths ?? {})) {
    for (const m of METHODS) if (item?.[m]) out.set(opKey(m, p), { name: `${m.toUpperCase()} ${p}`, op: item[m] });
  }
  return out;
}

export function breakingChanges(released: TJson, current: TJson): string[] {
  const out: string[] = [];
  const now = operations(current);

  function schema(a: unknown, b: unknown, where: string, dir: TDirection, depth: number): void {
    if (depth > 12) return;
    const o = resolve(released, a);
    const n = resolve(current, b);
    if (!o || !n) return;
    const ot = typesOf(o);
    const nt = typesOf(n);
    if (ot && nt) {
      if (dir === "request" && ot.some((t) => !nt.includes(t) && !(t === "integer" && nt.includes("number"))))
        out.push(`${where}: type ${ot.join("|")} became ${nt.join("|")} (a request accepts less)`);
      if (dir === "response" && nt.some((t) => !ot.includes(t) && !(t === "integer" && ot.includes("number"))))
        out.push(`${where}: type ${ot.join("|")} became ${nt.join("|")} (a response may answer more)`);
    } else if (dir === "request" && !ot && nt) {
      out.push(`${where}: any type became ${nt.join("|")}`);
    }
    if (Array.isArray(o.enum) && dir === "request") {
      const removed = Array.isArray(n.enum)
        ? o.enum.filter((v: unknown) => !n.enum.some((w: unknown) => JSON.stringify(w) === JSON.stringify(v)))
        : [];
      if (removed.length) out.push(`${where}: enum lost ${removed.map((v: unknown) => JSON.stringify(v)).join(", ")}`);
    }
    if (!Array.isArray(o.enum) && Array.isArray(n.enum) && dir === "request") out.push(`${where}: became an enum`);
    if ("const" in o && JSON.stringify(o.const) !== JSON.stringify(n.const))
      out.push(`${where}: const ${JSON.stringify(o.const)} became ${JSON.stringify(n.const)}`);
    if (!("const" in o) && "const" in n && dir === "request")
      out.push(`${where}: became const ${JSON.stringify(n.const)}`);

    const oreq = new Set<string>(o.required ?? []);
    const nreq = new Set<string>(n.required ?? []);
    const oprops = (o.properties ?? {}) as TJson;
    const nprops = (n.properties ?? {}) as TJson;
    if (dir === "response") {
      for (const k of Object.keys(oprops)) {
        if (!(k in nprops)) out.push(`${where}/${k}: response property removed`);
        else if (oreq.has(k) && !nreq.has(k)) out.push(`${where}/${k}: response property no longer required`);
      }
    } else {
      for (const k of nreq) if (!oreq.has(k)) out.push(`${where}/${k}: request property became required`);
      for (const k of Object.keys(oprops))
        if (!(k in nprops) && n.additionalProperties === false)
          out.push(`${where}/${k}: request property no longer accepted`);
    }
    for (const k of Object.keys(oprops)) if (k in nprops) schema(oprops[k], nprops[k], `${where}/${k}`, dir, depth + 1);
    if (o.items && n.items) schema(o.items, n.items, `${where}/items`, dir, depth + 1);
  }

  for (const [key, { name, op: o }] of operations(released)) {
    const hit = now.get(key);
    if (!hit) {
      out.push(`${name}: operation removed`);
      continue;
    }
    const n = hit.op;
    if (Array.isArray(o.security) && o.security.length === 0 && Array.isArray(n.security) && n.security.length > 0)
      out.push(`${name}: a public operation now requires credentials`);

    // Parameters (by location and name; path parameters by position, their names may change).
    const params = (op: TJson, doc: TJson) =>
      new Map<string, TJson>(
        (op.parameters ?? [])
          .map((p: unknown) => resolve(doc, p))
          .filter(Boolean)
          .filter((p: TJson) => p.in !== "path")
          .map((p: TJson) => [`${p.in} ${String(p.name).toLowerCase()}`, p]),
      );
    const op = params(o, released);
    const np = params(n, current);
    for (const [k, p] of np) {
      const before = op.get(k);
      if (p.required && !before?.required)
        out.push(`${name}: ${before ? "parameter became required" : "new required parameter"} ${k}`);
      if (before) schema(before.schema, p.schema, `${name} parameter ${k}`, "request", 0);
    }

    // Request body.
    const ob = resolve(released, o.requestBody);
    const nb = resolve(current, n.requestBody);
    if (nb?.required && !ob?.required) out.push(`${name}: request body became required`);
    if (ob && nb) {
      for (const [media, m] of Object.entries<TJson>(ob.content ?? {})) {
        const nm = nb.content?.[media];
        if (!nm) out.push(`${name}: request media type ${media} removed`);
        else schema(m.schema, nm.schema, `${name} request ${media}`, "request", 0);
      }
    }

    // Responses.
    for (const [status, r0] of Object.entries<TJson>(o.responses ?? {})) {
      const r1 = resolve(current, n.responses?.[status]);
      if (!r1) {
        out.push(`${name}: response ${status} removed`);
        continue;
      }
      const r = resolve(released, r0) ?? {};
      for (const [media, m] of Object.entries<TJson>(r.content ?? {})) {
        const nm = r1.content?.[media];
        if (!nm) out.push(`${name} ${status}: response media type ${media} removed`);
        else schema(m.schema, nm.schema, `${name} ${status} ${media}`, "response", 0);
      }
    }
  }
  return out;
}

const major = (v: string) => Number(/^(\d+)\./.exec(v)?.[1] ?? NaN);

/**
 * Spec 9: the API is published as /v1; a breaking change is a new major
 * version (info.version 2.0.0, served under a new prefix), never a silent
 * edit of v1. So: no breaking change, or the major version went up.
 */
export function versionVerdict(
  releasedVersion: string,
  currentVersion: string,
  changes: string[],
): { ok: boolean; message: string } {
  const r = major(releasedVersion);
  const c = major(currentVersion);
  if (Number.isNaN(c) || Number.isNaN(r))
    return {
      ok: false,
      message: `info.version must be semver (released ${releasedVersion}, current ${currentVersion})`,
    };
  if (c < r) return { ok: false, message: `info.version went down from ${releasedVersion} to ${currentVersion}` };
  if (!changes.length)
    return { ok: true, message: `no breaking change since ${releasedVersion} (current ${currentVersion})` };
  if (c > r)
    return {
      ok: true,
      message: `${changes.length} breaking change(s), allowed by the new major version ${currentVersion} (released ${releasedVersion})`,
    };
  return {
    ok: false,
    message: `${changes.length} breaking change(s) against the released ${releasedVersion} with the same major version ${currentVersion}: keep v${r} compatible, or publish a new major version (spec 9)`,
  };
}
