import { openApiJson } from "@/server/http/openapi";

export const dynamic = "force-dynamic";
export const metadata = { title: "Capstan API reference" };

type TOp = {
  method: string;
  path: string;
  summary?: string;
  tags?: string[];
  responses: Record<string, unknown>;
  requestBody?: unknown;
};

const METHOD_STYLE: Record<string, string> = {
  get: "bg-sky-100 text-sky-800",
  post: "bg-emerald-100 text-emerald-800",
  put: "bg-amber-100 text-amber-800",
  patch: "bg-amber-100 text-amber-800",
  delete: "bg-rose-100 text-rose-800",
};

/** A readable API reference rendered from the same OpenAPI document served at /v1/openapi.json. */
export default function DocsPage() {
  const doc = JSON.parse(openApiJson()) as {
    info: { title: string; version: string; description?: string };
    paths: Record<string, Record<string, Omit<TOp, "method" | "path">>>;
  };
  const ops: TOp[] = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ ...op, method, path })),
  );
  const groups = new Map<string, TOp[]>();
  for (const op of ops) {
    const tag = op.tags?.[0] ?? "Other";
    groups.set(tag, [...(groups.get(tag) ?? []), op]);
  }
  return (
    <main className="mx-auto max-w-5xl p-8">
      <h1 className="text-3xl font-semibold">
        {doc.info.title} <span className="text-base font-normal text-slate-600">v{doc.info.version}</span>
      </h1>
      <p className="mt-2 text-slate-600">{doc.info.description}</p>
      <p className="mt-2 text-sm">
        Machine-readable:{" "}
        <a className="text-sky-700 underline" href="/v1/openapi.json">
          /v1/openapi.json
        </a>{" "}
        (OpenAPI 3.1). Authenticate with{" "}
        <code className="rounded bg-slate-200 px-1">Authorization: Bearer &lt;token&gt;</code>.
      </p>
      {[...groups.entries()].map(([tag, list]) => (
        <section key={tag} className="mt-8" aria-labelledby={`tag-${tag}`}>
          <h2 id={`tag-${tag}`} className="border-b border-slate-200 pb-1 text-xl font-semibold">
            {tag}
          </h2>
          <ul className="mt-3 space-y-2">
            {list.map((op) => (
              <li key={`${op.method} ${op.path}`} className="rounded-md border border-slate-200 bg-white p-3">
                <div className="flex flex-wrap items-center gap-3">
                  <span
                    className={`rounded px-2 py-0.5 font-mono text-xs font-bold uppercase ${METHOD_STYLE[op.method] ?? ""}`}
                  >
                    {op.method}
                  </span>
                  <code className="font-mono text-sm">{op.path}</code>
                  <span className="text-sm text-slate-600">{op.summary}</span>
                </div>
                <div className="mt-2 text-xs text-slate-600">Responses: {Object.keys(op.responses).join(", ")}</div>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </main>
  );
}
