import { parseArgs } from "node:util";
import { call, CliError, EXIT, output, session, usageError } from "./context";

/**
 * `capstan runner-hosts ls|cordon|uncordon|drain <host>`: the operator's view of
 * runner hosts through /v1/platform/runner-hosts (the token's user must be an
 * owner or admin of ws_platform; the server audits each change under that user).
 * <host> is the id (rh_…) or the registered name (hostname:runner dir).
 */
const options = {
  json: { type: "boolean", default: false },
  url: { type: "string" },
  workspace: { type: "string" },
} as const;
const ACTIONS = ["cordon", "uncordon", "drain"] as const;
const USAGE =
  "usage: capstan runner-hosts ls | cordon <host> | uncordon <host> | drain <host>   (host: rh_… or its name)";

type TSession = Awaited<ReturnType<typeof session>>;
const list = async (s: TSession) =>
  (await call("Listing runner hosts", s.client.GET("/v1/platform/runner-hosts", {}))).items;
type THost = Awaited<ReturnType<typeof list>>[number];

function line(h: THost): string {
  const note = h.drain ? ` — ${h.drain.message} (${h.drain.remaining} left)` : "";
  return `${h.id}  ${h.state.padEnd(9)} ${`${h.load}/${h.capacity}`.padEnd(6)} ${(h.sandbox ?? "-").padEnd(10)} ${h.name}  (${h.endpoint}, heartbeat ${h.last_heartbeat_at})${note}`;
}

async function resolve(s: TSession, host: string): Promise<string> {
  if (/^rh_[0-9a-f]{20}$/.test(host)) return host;
  const found = (await list(s)).find((h) => h.name === host);
  if (!found)
    throw new CliError(
      `No runner host is named ${host}; \`capstan runner-hosts ls\` lists them.`,
      EXIT.failed,
      "not_found",
    );
  return found.id;
}

export async function runnerHostsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
  const [sub, host, ...extra] = positionals;
  const out = output(values.json);
  if (sub === "ls" && !host) {
    const items = await list(await session(values));
    out.result(items.length ? items.map(line).join("\n") : "No runner host has registered yet.", { items });
    return EXIT.ok;
  }
  const action = ACTIONS.find((a) => a === sub);
  if (!action || !host || extra.length) throw usageError(USAGE);
  const s = await session(values);
  const id = await resolve(s, host);
  const path = { params: { path: { host: id } } };
  const h = await call(
    `${action[0]!.toUpperCase()}${action.slice(1)} of ${host}`,
    action === "cordon"
      ? s.client.POST("/v1/platform/runner-hosts/{host}:cordon", path)
      : action === "uncordon"
        ? s.client.POST("/v1/platform/runner-hosts/{host}:uncordon", path)
        : s.client.POST("/v1/platform/runner-hosts/{host}:drain", path),
  );
  const said = {
    cordon: "cordoned: no new deployment is placed on it",
    uncordon: "takes new deployments again",
    drain: "draining: its deployments are replaced on other hosts one by one",
  }[action];
  out.result(`${h.name} ${said}.\n${line(h)}`, h);
  return EXIT.ok;
}
