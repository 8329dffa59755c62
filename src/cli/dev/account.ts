import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  ask,
  call,
  clientFor,
  CliError,
  DEFAULT_URL,
  EXIT,
  interactive,
  output,
  profilePath,
  readProfile,
  session,
  usageError,
  writeProfile,
} from "./context";

/**
 * capstan login [--url URL] [--token T] [--workspace ws_…] [--json]
 *
 * A personal API token (console: Account → API tokens, or `npx capstan token`
 * on the server's machine) pasted at the prompt, piped on stdin, or passed
 * with --token / CAPSTAN_TOKEN; checked against the server before it is saved
 * to the profile (0600). The workspace: --workspace, else the only workspace
 * besides the platform's, else a new one named "apps".
 */
export async function loginCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: "string" },
      token: { type: "string" },
      workspace: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const out = output(values.json);
  const profile = await readProfile();
  const url = (values.url ?? process.env.CAPSTAN_URL ?? profile?.url ?? DEFAULT_URL).replace(/\/+$/, "");
  let token = values.token ?? process.env.CAPSTAN_TOKEN;
  if (!token && !process.stdin.isTTY) token = readFileSync(0, "utf8").trim();
  if (!token && interactive()) {
    out.progress(
      `Create a token at ${url}/console/tokens (or run \`npx capstan token --email you@example.com --ttl 30d\` where Capstan runs), then paste it.`,
    );
    token = await ask("Token:");
  }
  if (!token)
    throw usageError(
      "No token: pass --token, set CAPSTAN_TOKEN, pipe it on stdin, or run `capstan login` in a terminal.",
    );
  const client = clientFor(url, token);
  const list = await call("Checking the token", client.GET("/v1/workspaces", { params: { query: { limit: 200 } } }));
  let ws = values.workspace ? list.items.find((w) => w.id === values.workspace) : undefined;
  if (values.workspace && !ws)
    throw new CliError(`You are not a member of ${values.workspace}.`, EXIT.failed, "not_a_member");
  let created = false;
  if (!ws) {
    const own = list.items.filter((w) => w.id !== "ws_platform");
    ws = own.length === 1 ? own[0] : own.find((w) => w.name === "apps");
    if (!ws && own.length > 1)
      throw usageError(
        `You belong to ${own.length} workspaces: choose one with --workspace (${own.map((w) => `${w.id} "${w.name}"`).join(", ")}).`,
      );
    if (!ws) {
      ws = await call("Creating a workspace", client.POST("/v1/workspaces", { body: { name: "apps" } }));
      created = true;
    }
  }
  const claims = jwtClaims(token);
  const file = await writeProfile({ url, token, workspace_id: ws.id });
  out.result(
    `Logged in to ${url} as ${String(claims.sub ?? "?")}; workspace ${ws.name} (${ws.id}, ${ws.role})${created ? ", created for your apps" : ""}.\nProfile: ${file}`,
    {
      url,
      user_id: claims.sub ?? null,
      workspace_id: ws.id,
      workspace_name: ws.name,
      role: ws.role,
      workspace_created: created,
      profile: file,
      expires_at: claims.exp ? new Date(claims.exp * 1000).toISOString() : null,
    },
  );
  return EXIT.ok;
}

/** The token's claims, read without verifying (the server verifies; this only reports). */
export function jwtClaims(token: string): { sub?: string; exp?: number; aud?: string | string[] } {
  try {
    return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as {
      sub?: string;
      exp?: number;
    };
  } catch {
    return {};
  }
}

export async function logoutCommand(): Promise<number> {
  const profile = await readProfile();
  if (profile) await writeProfile({ url: profile.url, token: "" });
  process.stdout.write(
    `Logged out (${profilePath()}). The token itself stays valid until it expires or is revoked in the console.\n`,
  );
  return EXIT.ok;
}

/** capstan whoami: the server, the user, the token's expiry and the workspace with your role. */
export async function whoamiCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { json: { type: "boolean", default: false }, url: { type: "string" }, workspace: { type: "string" } },
  });
  const s = await session(values);
  const list = await call("Listing workspaces", s.client.GET("/v1/workspaces", { params: { query: { limit: 200 } } }));
  const claims = jwtClaims(s.token);
  const current = list.items.find((w) => w.id === s.workspaceId);
  const exp = claims.exp ? new Date(claims.exp * 1000).toISOString() : null;
  output(values.json).result(
    [
      `server:    ${s.url}`,
      `user:      ${String(claims.sub ?? "?")}${exp ? ` (token expires ${exp})` : ""}`,
      `workspace: ${current ? `${current.name} (${current.id}, ${current.role})` : (s.workspaceId ?? "(none)")}`,
      `profile:   ${profilePath()}`,
    ].join("\n"),
    {
      url: s.url,
      user_id: claims.sub ?? null,
      token_expires_at: exp,
      workspace: current ?? null,
      workspaces: list.items,
      profile: profilePath(),
    },
  );
  return EXIT.ok;
}
