import { CliError, EXIT } from "./context";

/**
 * The developer commands of `capstan` (issue #39). They talk to Capstan's
 * REST API through the generated client with the profile's token, never to
 * the database; the operator commands (token, migrate, ...) are in ../capstan.ts.
 */
export const DEV_USAGE = `For developers (talk to a Capstan server over its REST API):

  login [--url URL] [--token T] [--workspace ws_…]   save a personal API token (pasted, piped or --token) to the profile
  logout                                           forget the token
  whoami                                           the server, you, the token's expiry and the workspace
  init [dir] [--kv /prefix] [--storage /prefix] [--ai] [--email from@x --email-domain d] [--force]
                                                   write capabilities.json (asks when run in a terminal without flags)
  deploy [dir|repo-url] [--env preview|staging|production] [--ref main] [--name N] [--yes]
                                                   freeze the working tree (uploaded) or a repository ref, show findings,
                                                   confirm, deploy, stream the build log, print the URL
  logs [dep] [--follow] [--grep text]              build steps, build log and app log, timestamped (default: this directory's last deployment)
  open [dep]                                       the app's URL (and a browser when there is a desktop)
  ls                                               products and their live deployments
  stop [dep]                                       stop a deployment
  env [dep]                                        the environment and capabilities the app sees
  mock-ai [--port 4010]                            run an OpenAI-compatible echo provider (NOT a real model) on
                                                   127.0.0.1 and bind it for ai.generate until Ctrl-C (the server
                                                   needs CAPSTAN_PROVIDER_ALLOW_PRIVATE=1)

  runner-hosts ls | cordon <host> | uncordon <host> | drain <host>
                                                   runner hosts (ws_platform owners and admins): list them, stop
                                                   placing on one, lift that, or move its deployments elsewhere
  Every command takes --json (one JSON document on stdout), --url and --workspace.
  Exit codes: 0 ok, 1 failed (build, freeze, refused), 2 usage, 3 server unreachable,
  4 not logged in or token refused, 5 needs confirmation (re-run with --yes).
  Profile: $CAPSTAN_CONFIG or ~/.config/capstan/profile.json; CAPSTAN_URL, CAPSTAN_TOKEN, CAPSTAN_WORKSPACE override it.`;

const COMMANDS: Record<string, () => Promise<(args: string[]) => Promise<number>>> = {
  login: async () => (await import("./account")).loginCommand,
  logout: async () => (await import("./account")).logoutCommand,
  whoami: async () => (await import("./account")).whoamiCommand,
  init: async () => (await import("./init")).initCommand,
  deploy: async () => (await import("./deploy")).deployCommand,
  logs: async () => (await import("./apps")).logsCommand,
  open: async () => (await import("./apps")).openCommand,
  ls: async () => (await import("./apps")).lsCommand,
  stop: async () => (await import("./apps")).stopCommand,
  env: async () => (await import("./apps")).envCommand,
  "mock-ai": async () => (await import("./mock-ai")).mockAiCommand,
  "runner-hosts": async () => (await import("./runner-hosts")).runnerHostsCommand,
};

export const isDevCommand = (command: string | undefined): boolean =>
  command !== undefined && Object.hasOwn(COMMANDS, command);

/** Runs one developer command; never throws: errors become a message (or JSON) and an exit code. */
export async function runDev(command: string, args: string[]): Promise<number> {
  const json = args.includes("--json");
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(DEV_USAGE + "\n");
    return EXIT.ok;
  }
  try {
    return await (
      await COMMANDS[command]!()
    )(args);
  } catch (err) {
    const e =
      err instanceof CliError
        ? err
        : (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
          ? new CliError((err as Error).message, EXIT.usage, "usage")
          : new CliError((err as Error).message ?? String(err), EXIT.failed, "error");
    if (json)
      process.stdout.write(
        JSON.stringify({ error: { code: e.code, message: e.message, exit_code: e.exitCode, ...e.details } }, null, 2) +
          "\n",
      );
    process.stderr.write(`capstan ${command}: ${e.message}\n`);
    return e.exitCode;
  }
}
