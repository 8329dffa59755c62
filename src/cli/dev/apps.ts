import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { call, CliError, EXIT, output, readProject, requireWorkspace, session, sleep, usageError } from "./context";
import { describeCapability } from "./words";

/** logs, open, ls, stop, env: the deployment is an argument, else the one `capstan deploy` made from this directory. */
const common = {
  json: { type: "boolean", default: false },
  url: { type: "string" },
  workspace: { type: "string" },
  dir: { type: "string", default: "." },
} as const;

async function target(dep: string | undefined, flags: { url?: string; workspace?: string; dir: string }, env?: string) {
  const link = await readProject(path.resolve(flags.dir));
  const s = await session({ url: flags.url ?? link?.url, workspace: flags.workspace ?? link?.workspace_id });
  const ws = requireWorkspace(s.workspaceId);
  const id = dep ?? (env ? link?.deployments?.[env] : link?.last_deployment_id);
  if (!id)
    throw usageError(
      "Which deployment? Pass its id (dep_…; `capstan ls` lists them) or run this in a directory you deployed with `capstan deploy`.",
    );
  if (!/^dep_[0-9a-z]{26}$/.test(id)) throw usageError(`${id} is not a deployment id (dep_…)`);
  return { ...s, ws, dep: id };
}

export async function logsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...common,
      follow: { type: "boolean", short: "f", default: false },
      env: { type: "string" },
      grep: { type: "string", short: "g" },
    },
  });
  const t = await target(positionals[0], values, values.env);
  const read = (query: { since?: number; q?: string; tail_bytes?: number }) =>
    call(
      "Reading the logs",
      t.client.GET("/v1/workspaces/{ws}/deployments/{dep}/logs", { params: { path: { ws: t.ws, dep: t.dep }, query } }),
    );
  let logs = await read(values.grep ? { q: values.grep } : {});
  if (values.json && !values.follow) {
    output(true).result("", logs);
    return EXIT.ok;
  }
  const steps = logs.build_steps
    .filter((s) => s.status !== "pending")
    .map(
      (s) =>
        `  ${s.name.padEnd(8)} ${s.status}${s.duration_ms !== null ? ` in ${(s.duration_ms / 1000).toFixed(1)} s` : ""}`,
    );
  process.stdout.write(
    `--- build log (${t.dep}) ---\n${steps.length ? `${steps.join("\n")}\n` : ""}${logs.build_log}${logs.build_log.endsWith("\n") || !logs.build_log ? "" : "\n"}--- app log ---\n`,
  );
  if (logs.run_log_expired_before > 0 && !values.grep)
    process.stdout.write(`(earlier lines are past their ${logs.retention_days}-day retention)\n`);
  process.stdout.write(logs.run_log);
  if (!values.follow) return EXIT.ok;
  let stop = false;
  process.once("SIGINT", () => (stop = true));
  // Follow: the run log from where the last answer ended (byte offsets of the whole kept log), filtered alike.
  let since = logs.run_log_end;
  while (!stop && logs.live) {
    await sleep(1000);
    const next = await read({ since, tail_bytes: 1_048_576 });
    const fresh = values.grep
      ? next.run_log
          .split("\n")
          .filter((l) => l && l.toLowerCase().includes(values.grep!.toLowerCase()))
          .map((l) => `${l}\n`)
          .join("")
      : next.run_log;
    if (fresh) process.stdout.write(fresh);
    since = next.run_log_end;
    logs = next;
  }
  if (!logs.live) process.stderr.write("(the app is not running)\n");
  return EXIT.ok;
}

export async function stopCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...common, env: { type: "string" } },
  });
  const t = await target(positionals[0], values, values.env);
  const dep = await call(
    "Stopping",
    t.client.POST("/v1/workspaces/{ws}/deployments/{dep}:stop", { params: { path: { ws: t.ws, dep: t.dep } } }),
  );
  output(values.json).result(`Stopped ${dep.id} (${dep.environment_type}): ${dep.status}.`, dep);
  return EXIT.ok;
}

async function surfaceOf(t: Awaited<ReturnType<typeof target>>) {
  const dep = await call(
    "Reading the deployment",
    t.client.GET("/v1/workspaces/{ws}/deployments/{dep}", { params: { path: { ws: t.ws, dep: t.dep } } }),
  );
  if (!dep.surface_id) throw new CliError(`${dep.id} has no surface (${dep.status}).`, EXIT.failed, "no_surface");
  const srf = await call(
    "Reading the surface",
    t.client.GET("/v1/workspaces/{ws}/surfaces/{srf}", { params: { path: { ws: t.ws, srf: dep.surface_id } } }),
  );
  return { dep, srf };
}

export async function openCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...common, env: { type: "string" }, print: { type: "boolean", default: false } },
  });
  const t = await target(positionals[0], values, values.env);
  const { dep, srf } = await surfaceOf(t);
  if (!srf.url) throw new CliError(`The surface of ${dep.id} has no URL (${srf.status}).`, EXIT.failed, "no_url");
  output(values.json).result(`${srf.url}\n(also ${srf.path_url ?? ""})`, {
    url: srf.url,
    path_url: srf.path_url ?? null,
    status: srf.status,
    deployment_id: dep.id,
  });
  // Best effort: a browser when there is a desktop; the URL above is the answer either way.
  if (
    !values.print &&
    !values.json &&
    (process.env.DISPLAY || process.env.WAYLAND_DISPLAY || process.platform === "darwin")
  ) {
    const opener = process.platform === "darwin" ? "open" : "xdg-open";
    spawn(opener, [srf.url], { stdio: "ignore", detached: true })
      .on("error", () => undefined)
      .unref();
  }
  return EXIT.ok;
}

export async function lsCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: common.json, url: common.url, workspace: common.workspace } });
  const s = await session(values);
  const ws = requireWorkspace(s.workspaceId);
  const [products, deployments, surfaces] = await Promise.all([
    call(
      "Listing products",
      s.client.GET("/v1/workspaces/{ws}/products", { params: { path: { ws }, query: { limit: 200 } } }),
    ),
    call(
      "Listing deployments",
      s.client.GET("/v1/workspaces/{ws}/deployments", {
        params: { path: { ws }, query: { limit: 200, status: "active" } },
      }),
    ),
    call(
      "Listing surfaces",
      s.client.GET("/v1/workspaces/{ws}/surfaces", { params: { path: { ws }, query: { limit: 200 } } }),
    ),
  ]);
  const urlOf = new Map(surfaces.items.map((x) => [x.deployment_id, x.url ?? ""]));
  const rows = products.items.map((p) => ({
    product_id: p.id,
    name: p.name,
    status: p.status,
    last_activity_at: p.last_activity_at,
    live: deployments.items
      .filter((d) => d.product_id === p.id)
      .map((d) => ({ deployment_id: d.id, environment_type: d.environment_type, url: urlOf.get(d.id) ?? null })),
  }));
  const human = rows.length
    ? rows
        .map((r) =>
          [
            `${r.name}  ${r.product_id}  ${r.status}`,
            ...r.live.map((d) => `  ${d.environment_type}  ${d.deployment_id}  ${d.url ?? ""}`),
          ].join("\n"),
        )
        .join("\n")
    : "No products yet: `capstan deploy` in an app's directory.";
  output(values.json).result(human, { workspace_id: ws, products: rows });
  return EXIT.ok;
}

/** What the app will see: its environment, and the capabilities its contract lets it ask for. */
export async function envCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...common, env: { type: "string" } },
  });
  const vars: Record<string, string> = {
    PORT: "the port to listen on (chosen per deployment)",
    NODE_ENV: "production",
    PATH: "the runner's PATH (node and npm included)",
    HOME: "a writable directory of the deployment's own",
    CAPSTAN_BRIDGE_URL:
      "the Bridge for this deployment: POST $CAPSTAN_BRIDGE_URL/v1/capabilities/{capability}/{action}, no token needed",
    CAPSTAN_DEPLOYMENT_ID: "this deployment's id",
  };
  let capabilities: unknown[] = [];
  let source = "none";
  const link = await readProject(path.resolve(values.dir));
  if (positionals[0] || link?.last_deployment_id) {
    const t = await target(positionals[0], values, values.env);
    const dep = await call(
      "Reading the deployment",
      t.client.GET("/v1/workspaces/{ws}/deployments/{dep}", { params: { path: { ws: t.ws, dep: t.dep } } }),
    );
    const c = await call(
      "Reading the contract",
      t.client.GET("/v1/workspaces/{workspace_id}/revisions/{revision_id}/capability-contract", {
        params: { path: { workspace_id: t.ws, revision_id: dep.revision_id } },
      }),
    );
    capabilities = "capabilities" in c ? c.capabilities : [];
    source = `deployment ${dep.id}`;
  } else {
    const file = path.resolve(values.dir, "capabilities.json");
    if (existsSync(file)) {
      capabilities = (JSON.parse(readFileSync(file, "utf8")) as { capabilities?: unknown[] }).capabilities ?? [];
      source = file;
    }
  }
  const human = [
    "Environment of the app (nothing of Capstan's own environment reaches it):",
    ...Object.entries(vars).map(([k, v]) => `  ${k.padEnd(22)} ${v}`),
    `Capabilities (${source}):`,
    ...(capabilities.length ? capabilities.map((c) => `  ${describeCapability(c as never)}`) : ["  none"]),
    "No network: the app reaches nothing but the Bridge.",
  ].join("\n");
  output(values.json).result(human, { env: vars, capabilities, source });
  return EXIT.ok;
}
