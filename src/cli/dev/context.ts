import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { createCapstanClient, type CapstanClient } from "@capstan/client";

/**
 * What every developer command shares: the profile (where Capstan is, the
 * token, the workspace), the typed REST client (packages/client; the CLI
 * never touches the database), exit codes, output (results on stdout, or
 * one JSON document with --json; progress on stderr) and confirmation.
 */

/** Exit codes (docs/cli.md "The `capstan` commands"). */
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3, unauthenticated: 4, needsConfirmation: 5 } as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly code: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage, "usage");

export type TProfile = { url: string; token: string; workspace_id?: string; email?: string; saved_at?: string };

/** $CAPSTAN_CONFIG, else $XDG_CONFIG_HOME/capstan/profile.json, else ~/.config/capstan/profile.json. */
export function profilePath(): string {
  if (process.env.CAPSTAN_CONFIG) return path.resolve(process.env.CAPSTAN_CONFIG);
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "capstan", "profile.json");
}

export async function readProfile(): Promise<TProfile | null> {
  try {
    return JSON.parse(await readFile(profilePath(), "utf8")) as TProfile;
  } catch {
    return null;
  }
}

/** Written 0600 in a 0700 directory: the file holds a bearer token. */
export async function writeProfile(p: TProfile): Promise<string> {
  const file = profilePath();
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify({ ...p, saved_at: new Date().toISOString() }, null, 2) + "\n", { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

export const DEFAULT_URL = "http://localhost:3000";

/** The server, token and workspace to use: flags and CAPSTAN_URL / CAPSTAN_TOKEN / CAPSTAN_WORKSPACE over the profile. */
export async function session(
  flags: { url?: string; workspace?: string } = {},
): Promise<{ url: string; token: string; workspaceId: string | undefined; client: CapstanClient }> {
  const profile = await readProfile();
  const url = (flags.url ?? process.env.CAPSTAN_URL ?? profile?.url ?? DEFAULT_URL).replace(/\/+$/, "");
  const token = process.env.CAPSTAN_TOKEN ?? profile?.token;
  if (!token) {
    throw new CliError(
      `Not logged in: run \`capstan login --url ${url}\` (or set CAPSTAN_TOKEN).`,
      EXIT.unauthenticated,
      "not_logged_in",
    );
  }
  const workspaceId = flags.workspace ?? process.env.CAPSTAN_WORKSPACE ?? profile?.workspace_id;
  return { url, token, workspaceId, client: clientFor(url, token) };
}

/** The typed client, whose fetch turns "nothing answers" into exit code 3 with the URL. */
export function clientFor(url: string, token?: string): CapstanClient {
  return createCapstanClient({
    baseUrl: url,
    ...(token ? { token } : {}),
    fetch: async (req: Request) => {
      try {
        return await fetch(req);
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new CliError(
          `Cannot reach Capstan at ${url} (${cause?.code ?? cause?.message ?? (err as Error).message}). Is it running? Start it with \`npm start\`, or log in to another URL with \`capstan login --url\`.`,
          EXIT.unreachable,
          "unreachable",
        );
      }
    },
  });
}

type TProblemBody = {
  title?: string;
  detail?: string;
  code?: string;
  reason?: string;
  errors?: Array<{ path?: string; message?: string }>;
};

/** `data` of a call, or a CliError in words: 401 means log in again; anything else says what the server said. */
export async function call<T>(what: string, p: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await p;
  if (response.ok && error === undefined) return data as T;
  const body = (error ?? {}) as TProblemBody;
  if (response.status === 401) {
    throw new CliError(
      `Not logged in: Capstan refused the token (${response.headers.get("www-authenticate") ?? body.detail ?? "401"}). Run \`capstan login\` again.`,
      EXIT.unauthenticated,
      "unauthenticated",
    );
  }
  const detail = body.detail ?? body.title ?? response.statusText;
  throw new CliError(
    `${what} failed: ${detail} (${response.status}${body.reason ? ` ${body.reason}` : ""})`,
    EXIT.failed,
    body.reason ?? body.code ?? `http_${response.status}`,
    {
      status: response.status,
      problem: error,
    },
  );
}

export function requireWorkspace(workspaceId: string | undefined): string {
  if (!workspaceId)
    throw usageError("No workspace chosen: run `capstan login --workspace ws_...` or pass --workspace.");
  return workspaceId;
}

// ---- output --------------------------------------------------------------------------------

export type TOut = { json: boolean; result(human: string, data: unknown): void; progress(line: string): void };

export function output(json: boolean): TOut {
  return {
    json,
    result(human, data) {
      process.stdout.write(
        json ? JSON.stringify(data, null, 2) + "\n" : human.endsWith("\n") || human === "" ? human : human + "\n",
      );
    },
    progress(line) {
      process.stderr.write(line + "\n");
    },
  };
}

export const interactive = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY);

/**
 * Asks a yes/no question on the terminal. `--yes` answers yes; without a
 * terminal (a script, CI) and without --yes it refuses with exit code 5, so
 * nothing that needs a person's consent happens silently.
 */
export async function confirm(question: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!interactive()) {
    throw new CliError(
      `${question} This needs confirmation and there is no terminal to ask: re-run with --yes to accept.`,
      EXIT.needsConfirmation,
      "confirmation_required",
    );
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${question} [y/N] `)).trim().toLowerCase();
    return answer === "y" || answer === "yes";
  } finally {
    rl.close();
  }
}

export async function ask(question: string, fallback = ""): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(fallback ? `${question} [${fallback}] ` : `${question} `)).trim();
    return answer || fallback;
  } finally {
    rl.close();
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the project link (.capstan/project.json in the app's directory) ----------------------

export type TProjectLink = {
  url: string;
  workspace_id: string;
  product_id: string;
  product_name?: string;
  last_deployment_id?: string;
  deployments?: Record<string, string>;
};

export async function readProject(dir: string): Promise<TProjectLink | null> {
  try {
    return JSON.parse(await readFile(path.join(dir, ".capstan", "project.json"), "utf8")) as TProjectLink;
  } catch {
    return null;
  }
}

export async function writeProject(dir: string, link: TProjectLink): Promise<void> {
  await mkdir(path.join(dir, ".capstan"), { recursive: true });
  await writeFile(path.join(dir, ".capstan", "project.json"), JSON.stringify(link, null, 2) + "\n");
  // The link is local state, never part of the uploaded tree or a commit.
  await writeFile(path.join(dir, ".capstan", ".gitignore"), "*\n");
}
