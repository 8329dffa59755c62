/**
 * Reading the server's own `GET /metrics` (Prometheus text format, guarded by
 * CAPSTAN_METRICS_TOKEN; docs/decisions.md "Production metrics") from a bench.
 */
export type TSamples = Map<string, number>;

/** `name{labels} value` lines -> a map keyed by `name{labels}` (exactly as written) and by `name` alone when unlabelled. */
export function parseMetrics(text: string): TSamples {
  const out: TSamples = new Map();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const sp = line.lastIndexOf(" ");
    const v = Number(line.slice(sp + 1));
    if (Number.isFinite(v) || line.endsWith("Inf")) out.set(line.slice(0, sp), v);
  }
  return out;
}

export async function scrapeMetrics(base: string, token: string): Promise<TSamples> {
  const r = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (r.status !== 200) throw new Error(`GET /metrics: ${r.status}`);
  return parseMetrics(await r.text());
}

/** A histogram's cumulative buckets (`le` -> count) of `name`, unlabelled. */
export function buckets(s: TSamples, name: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [k, v] of s) {
    const m = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\}$`).exec(k);
    if (m) out.push([m[1] === "+Inf" ? Infinity : Number(m[1]), v]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/**
 * The upper bound of the bucket holding quantile `q` of the observations made
 * between two scrapes (`before` may be empty): "p99 <= this". Null when
 * nothing was observed in between.
 */
export function histogramQuantile(
  before: TSamples,
  after: TSamples,
  name: string,
  q: number,
): { le: number; count: number } | null {
  const b = new Map(buckets(before, name));
  const diff = buckets(after, name).map(([le, n]) => [le, n - (b.get(le) ?? 0)] as [number, number]);
  const total = diff[diff.length - 1]?.[1] ?? 0;
  if (!total) return null;
  const found = diff.find(([, n]) => n >= q * total);
  return { le: found ? found[0] : Infinity, count: total };
}
