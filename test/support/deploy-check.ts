import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** Checks shared by test/deploy-artifacts.test.ts (Dockerfile, compose) and test/k8s-manifests.test.ts. */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const read = (f: string) => readFileSync(path.join(ROOT, f), "utf8");

/** Variables of the images around Capstan (and the AWS SDK's default chain) that the files may set. */
export const FOREIGN =
  /^(POSTGRES_[A-Z_]+|MINIO_ROOT_(USER|PASSWORD)|AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|REGION|SESSION_TOKEN))$/;

/** The settings env.ts validates, plus those the scripts read themselves. */
export function knownCapstanVariables(): Set<string> {
  const names = new Set(
    [...read("src/server/platform/env.ts").matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!),
  );
  for (const f of ["scripts/server.mjs", "scripts/graceful.mjs", "scripts/start.mjs"]) {
    for (const m of read(f).matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
  }
  return names;
}

/** Files `npm run build` writes (scripts/build-dist.mjs's entry points; next build's .next). */
export function builtFiles(): Set<string> {
  const entries = /entryPoints:\s*\{([^}]*)\}/.exec(read("scripts/build-dist.mjs"))?.[1] ?? "";
  return new Set([...entries.matchAll(/(\w+):\s*"/g)].map((m) => `dist/${m[1]}.mjs`));
}

/** Subcommands the CLI knows (its switch). */
export function cliCommands(): Set<string> {
  return new Set([...read("src/cli/capstan.ts").matchAll(/case "([a-z-]+)":/g)].map((m) => m[1]!));
}

/** A `node <file> [args]` command of ours: the file exists or is built; a CLI call names a known subcommand. */
export function checkNodeCommand(cmd: string[]): string[] {
  const problems: string[] = [];
  if (cmd[0] !== "node") return [`${cmd.join(" ")}: not node itself (npm does not relay SIGTERM)`];
  const file = cmd[1] ?? "";
  if (!existsSync(path.join(ROOT, file)) && !builtFiles().has(file))
    problems.push(`${file}: neither in the repository nor built by npm run build`);
  if (file === "dist/cli.mjs" && !cliCommands().has(cmd[2] ?? ""))
    problems.push(`capstan ${cmd[2]}: no such CLI command`);
  return problems;
}
