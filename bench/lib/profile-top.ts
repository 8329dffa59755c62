/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and by
 * area (Next.js, Prisma, pg, zod, undici, Capstan's own code, Node
 * internals, GC/idle). `npx tsx bench/lib/profile-top.ts <file.cpuprofile> [top]`.
 */
import { readFileSync } from "node:fs";

type TNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
};
type TProfile = { nodes: TNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

export function area(url: string, fn: string): string {
  if (fn === "(idle)") return "idle";
  if (fn === "(garbage collector)") return "gc";
  if (fn === "(program)") return "program (native, uncategorised)";
  if (/node_modules\/next\/|\.next\/server\/chunks\/.*next|next-server|next\/dist/.test(url)) return "next.js";
  if (/prisma|@prisma|query_compiler|generated\/prisma/.test(url)) return "prisma";
  if (/node_modules\/pg(-[a-z]+)?\//.test(url)) return "pg";
  if (/node_modules\/zod/.test(url)) return "zod";
  if (/undici/.test(url)) return "undici";
  if (/node_modules\/jose/.test(url)) return "jose (JWT)";
  if (/node_modules\/pino/.test(url)) return "pino";
  if (/\.next\/server|src\/server|\/src\//.test(url)) return "capstan";
  if (url.startsWith("node:") || url === "") return "node internals";
  if (/node_modules\//.test(url)) return `other: ${/node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1]}`;
  return "other";
}

export function summarise(
  file: string,
  top = 25,
): { totalMs: number; areas: Array<[string, number]>; functions: Array<[string, number]> } {
  const p = JSON.parse(readFileSync(file, "utf8")) as TProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    const a = area(url, functionName);
    if (a === "idle") continue;
    total += us;
    areas.set(a, (areas.get(a) ?? 0) + us);
    const key = `${functionName || "(anonymous)"} ${url
      .replace(/^.*node_modules\//, "")
      .replace(/^.*\.next\//, ".next/")
      .replace(/^file:\/\/.*\/src\//, "src/")}:${lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  const sort = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => [k, Math.round(v / 100) / 10] as [string, number]);
  return { totalMs: Math.round(total / 1000), areas: sort(areas, 20), functions: sort(fns, top) };
}

if (process.argv[1]?.endsWith("profile-top.ts")) {
  const s = summarise(process.argv[2]!, Number(process.argv[3] ?? 25));
  console.log(`busy ${s.totalMs} ms (idle excluded)`);
  console.log("\nby area (ms, % of busy):");
  for (const [a, ms] of s.areas)
    console.log(`  ${String(ms).padStart(9)}  ${((ms / s.totalMs) * 100).toFixed(1).padStart(5)}%  ${a}`);
  console.log("\ntop functions by self time (ms):");
  for (const [f, ms] of s.functions) console.log(`  ${String(ms).padStart(9)}  ${f}`);
}
