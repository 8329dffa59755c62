import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The import graph of a source tree, read from the files' import and export statements (static,
 * dynamic and type-only alike: a type import is still an arrow between two modules' meanings).
 * Only edges between files of the tree are kept; packages and node: modules are left out.
 */
export type TImportGraph = Map<string, Set<string>>;

const ROOT = path.resolve(import.meta.dirname, "../..");
const SRC = path.join(ROOT, "src");

const SPECIFIER =
  /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]*?\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(full);
  }
  return out;
}

function resolveSpecifier(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = path.join(SRC, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** The specifiers a source text imports, comments stripped first so a commented-out import is no edge. */
export function importSpecifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const out: string[] = [];
  for (const m of code.matchAll(SPECIFIER)) out.push((m[1] ?? m[2])!);
  return out;
}

/** Files under `dir` (relative to the repository root, e.g. "src/server"), non-test, with their edges inside it. */
export function importGraph(dir: string): TImportGraph {
  const files = walk(path.join(ROOT, dir));
  const inside = new Set(files);
  const graph: TImportGraph = new Map();
  for (const file of files) {
    const edges = new Set<string>();
    for (const spec of importSpecifiers(readFileSync(file, "utf8"))) {
      const target = resolveSpecifier(file, spec);
      if (target && inside.has(target) && target !== file) edges.add(rel(target));
    }
    graph.set(rel(file), edges);
  }
  return graph;
}

export function rel(file: string): string {
  return path.relative(ROOT, file).split(path.sep).join("/");
}

/** Strongly connected components with more than one file (Tarjan): each is an import cycle. */
export function cycles(graph: TImportGraph): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) connect(v);
  return out;
}

/** One shortest cycle through `start` inside its component, to name in a failure message. */
export function cyclePath(graph: TImportGraph, start: string): string[] {
  const prev = new Map<string, string>();
  const queue = [start];
  const seen = new Set([start]);
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (w === start) {
        const pathBack = [v];
        while (pathBack[0] !== start) pathBack.unshift(prev.get(pathBack[0]!)!);
        return [...pathBack, start];
      }
      if (!seen.has(w)) {
        seen.add(w);
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}
