import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { resetEnvCache, env } from "@/server/platform/env";

/**
 * Pieces of the hostile-app suite (test/hostile-isolation.int.test.ts): the
 * sandbox modes, what the host offers, the classification of each attempt
 * with what only the host can see, and the containment table it writes.
 */
export const MODES = ["gvisor", "bubblewrap", "none"] as const;
export type TMode = (typeof MODES)[number];
export type TVerdict = "refused" | "contained" | "allowed";

export const MODE_LABEL: Record<TMode, string> = {
  gvisor: "gVisor",
  bubblewrap: "bubblewrap",
  none: "none (unsandboxed)",
};

/** The attempts in table order, with the words docs/hosted-apps.md uses. */
export const ATTEMPTS = [
  ["identity", "Runs as host root (uid, capabilities, owner of its files on the host)"],
  ["tcp-capstan", "TCP to Capstan's own port"],
  ["tcp-postgres", "TCP to PostgreSQL 127.0.0.1:5432"],
  ["udp-dns", "UDP DNS (test resolver, configured resolvers, 1.1.1.1)"],
  ["ipv6", "IPv6 (TCP to [::1] and a public address, UDP)"],
  ["raw-socket", "Raw socket (AF_INET, AF_INET6, AF_PACKET)"],
  ["read-shadow", "Read /etc/shadow"],
  ["read-data-dir", "Read Capstan's data directory"],
  ["read-other-deployment", "Read another deployment's directory"],
  ["proc1-environ", "Read /proc/1/environ"],
  ["capstan-environ", "Read Capstan's environment"],
  ["write-outside", "Write outside its directory"],
  ["ptrace", "ptrace Capstan's process"],
  ["mount", "mount a tmpfs"],
  ["unshare", "unshare user, mount and network namespaces"],
  ["fork-bomb", "Fork bomb"],
  ["memory-bomb", "Memory bomb"],
  ["disk-fill", "Fill the disk"],
  ["log-flood", "Flood its log"],
  ["busy-loop", "Busy loop beside a second deployment"],
] as const;
export type TAttempt = (typeof ATTEMPTS)[number][0];

export type TCell = { verdict: TVerdict; why: string; evidence: unknown };
export type TColumn =
  | { mode: TMode; available: true; isolation: unknown; cells: Partial<Record<TAttempt, TCell>> }
  | { mode: TMode; available: false; reason: string };

const run = promisify(execFile);

/** Does this Capstan accept CAPSTAN_RUNNER_SANDBOX=<mode> at all (its configuration schema)? */
export function capstanKnowsMode(mode: TMode): { known: boolean; error: string | null } {
  const previous = process.env.CAPSTAN_RUNNER_SANDBOX;
  process.env.CAPSTAN_RUNNER_SANDBOX = mode;
  resetEnvCache();
  try {
    env();
    return { known: true, error: null };
  } catch (err) {
    return { known: false, error: String((err as Error).message).slice(0, 300) };
  } finally {
    if (previous === undefined) delete process.env.CAPSTAN_RUNNER_SANDBOX;
    else process.env.CAPSTAN_RUNNER_SANDBOX = previous;
    resetEnvCache();
  }
}

/** What the host offers, probed by the test itself (independently of Capstan's own probe). */
export async function hostOffers(mode: TMode): Promise<{ offered: boolean; why: string }> {
  if (mode === "none") return { offered: true, why: "plain processes" };
  if (mode === "bubblewrap") {
    if (!existsSync("/usr/bin/bwrap")) return { offered: false, why: "bubblewrap is not installed" };
    try {
      await run("/usr/bin/bwrap", ["--unshare-all", "--ro-bind", "/", "/", "--", "/bin/true"], { timeout: 10_000 });
      return { offered: true, why: "bwrap runs" };
    } catch (err) {
      return { offered: false, why: `bwrap refused to run: ${String((err as Error).message).split("\n")[0]}` };
    }
  }
  const runsc = ["/usr/bin/runsc", "/usr/local/bin/runsc"].find((p) => existsSync(p));
  if (!runsc) return { offered: false, why: "runsc (gVisor) is not installed" };
  try {
    await run(runsc, ["--rootless", "--network=none", "do", "/bin/true"], { timeout: 60_000 });
    return { offered: true, why: `${runsc} runs` };
  } catch (err) {
    return { offered: false, why: `runsc refused to run: ${String((err as Error).message).split("\n")[0]}` };
  }
}

export const sha256File = (p: string): string | null => {
  try {
    return createHash("sha256").update(readFileSync(p)).digest("hex");
  } catch {
    return null;
  }
};

/** Files under `dir` (depth-limited) whose name is `name`. */
export function findFiles(dir: string, name: string, depth = 5): string[] {
  const out: string[] = [];
  const walk = (d: string, left: number) => {
    let entries: string[] = [];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e);
      if (e === name) out.push(p);
      try {
        if (left > 0 && statSync(p).isDirectory()) walk(p, left - 1);
      } catch {
        /* gone meanwhile */
      }
    }
  };
  walk(dir, depth);
  return out;
}

/** Bytes of every file directly in `dir` (a deployment's log directory). */
export function dirBytes(dir: string): number {
  try {
    return readdirSync(dir).reduce((n, e) => n + statSync(path.join(dir, e)).size, 0);
  } catch {
    return 0;
  }
}

/**
 * A numeric limit from the isolation report, whatever iso names it: the first
 * number under a key that mentions one of `words` (e.g. ["pids", "process"]).
 */
export function reportedLimit(report: unknown, words: string[]): number | null {
  const seen = new Set<unknown>();
  const visit = (v: unknown, key: string): number | null => {
    if (v && typeof v === "object") {
      if (seen.has(v)) return null;
      seen.add(v);
      for (const [k, x] of Object.entries(v)) {
        const found = visit(x, `${key}.${k}`.toLowerCase());
        if (found !== null) return found;
      }
      return null;
    }
    return typeof v === "number" && words.some((w) => key.includes(w)) ? v : null;
  };
  return visit(report, "");
}

export const pct = (v: number[], p: number): number => {
  if (!v.length) return NaN;
  const s = [...v].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
};

const CELL_WORD: Record<TVerdict, string> = { refused: "refused", contained: "contained", allowed: "**allowed**" };

/** The table as Markdown: attempts down, modes across; an unavailable mode says why. */
export function tableMarkdown(columns: TColumn[], date: string): string {
  const head = `| Attempt | ${columns.map((c) => MODE_LABEL[c.mode]).join(" | ")} |`;
  const sep = `|---|${columns.map(() => "---").join("|")}|`;
  const rows = ATTEMPTS.map(([id, words]) => {
    const cells = columns.map((c) => {
      if (!c.available) return "unavailable";
      const cell = c.cells[id];
      return cell ? `${CELL_WORD[cell.verdict]}: ${cell.why.replace(/\|/g, "\\|")}` : "not run";
    });
    return `| ${words} | ${cells.join(" | ")} |`;
  });
  const notes = columns
    .filter((c): c is Extract<TColumn, { available: false }> => !c.available)
    .map((c) => `- ${MODE_LABEL[c.mode]}: unavailable on the host that produced this table (${c.reason}).`);
  return [
    `Produced by \`npx vitest run --project int test/hostile-isolation.int.test.ts\` on ${date} (then \`node scripts/containment-table.mjs\`).`,
    "",
    head,
    sep,
    ...rows,
    ...(notes.length ? ["", ...notes] : []),
  ].join("\n");
}

export function writeTable(columns: TColumn[], file: string): void {
  const date = new Date().toISOString();
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ date, columns, markdown: tableMarkdown(columns, date) }, null, 2) + "\n");
}
