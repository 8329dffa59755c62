import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import type { CapstanClient, components } from "@capstan/client";
import {
  call,
  CliError,
  confirm,
  EXIT,
  output,
  readProject,
  requireWorkspace,
  session,
  sleep,
  usageError,
  writeProject,
  type TOut,
} from "./context";
import { packTree } from "./pack";
import { describeBuildPlan, describeCapability, describeFindings, reasonInWords, tail } from "./words";

/**
 * capstan deploy [dir|repo-url] [--env preview|staging|production] [--ref R] [--yes] [--json]
 *
 * Freezes the working tree (uploaded as a tar.gz) or a repository ref, shows
 * the findings and the contract in words, asks before confirming a build plan
 * it has not confirmed for this product before or a contract that widens,
 * deploys, streams the build log and prints the URL. A directory is linked to
 * its product in `.capstan/project.json`, so the next deploy is a new revision
 * of the same product.
 */
type TDeployment = components["schemas"]["Deployment"];
type TRevision = components["schemas"]["Revision"];
const ENVS = ["preview", "staging", "production"] as const;
const TERMINAL = new Set(["active", "failed", "blocked", "superseded"]);

export async function deployCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      env: { type: "string", default: "preview" },
      ref: { type: "string", default: "main" },
      yes: { type: "boolean", short: "y", default: false },
      json: { type: "boolean", default: false },
      name: { type: "string" },
      workspace: { type: "string" },
      url: { type: "string" },
      timeout: { type: "string", default: "600" },
    },
  });
  const env = values.env as (typeof ENVS)[number];
  if (!ENVS.includes(env)) throw usageError(`--env must be one of ${ENVS.join(", ")}`);
  const out = output(values.json);
  const target = positionals[0] ?? ".";
  const isRepo = /^(https?|file):\/\//.test(target);
  const dir = isRepo ? null : path.resolve(target);
  if (dir && !(existsSync(dir) && statSync(dir).isDirectory()))
    throw usageError(`${target} is neither a directory nor a repository URL (https://… or file://…)`);
  const link = dir ? await readProject(dir) : null;
  const s = await session({ url: values.url ?? link?.url, workspace: values.workspace ?? link?.workspace_id });
  const ws = requireWorkspace(s.workspaceId);
  const deadline = Date.now() + Number(values.timeout) * 1000;
  const c = s.client;

  // 1. Freeze: upload the tree (or name the repository) and wait for the snapshot.
  let accepted: { source_freeze_id: string; product_id: string };
  if (dir) {
    const packed = await packTree(dir);
    out.progress(
      `Packing ${dir}: ${packed.files} files, ${kb(packed.rawBytes)} (${kb(packed.bytes.length)} compressed)`,
    );
    const upload = await call(
      "Uploading the tree",
      c.POST("/v1/workspaces/{ws}/uploads", {
        params: { path: { ws } },
        body: packed.bytes as unknown as string,
        bodySerializer: (b) => b,
        headers: { "content-type": "application/gzip" },
      }),
    );
    const sameProduct = link && link.workspace_id === ws && link.url === s.url ? link.product_id : null;
    accepted = sameProduct
      ? await call(
          "Freezing a new revision",
          c.POST("/v1/workspaces/{ws}/products/{prod}/source-freezes", {
            params: { path: { ws, prod: sameProduct } },
            body: { ref: upload.id },
          }),
        )
      : await call(
          "Creating the product",
          c.POST("/v1/workspaces/{ws}/products", {
            params: { path: { ws } },
            body: {
              repo_url: "upload:",
              ref: upload.id,
              auth: { kind: "none" },
              name: values.name ?? productName(dir),
            },
          }),
        );
  } else {
    accepted = await call(
      "Creating the product",
      c.POST("/v1/workspaces/{ws}/products", {
        params: { path: { ws } },
        body: {
          repo_url: target,
          ref: values.ref,
          auth: { kind: "none" },
          ...(values.name ? { name: values.name } : {}),
        },
      }),
    );
  }
  const productId = accepted.product_id;
  if (dir) await writeProject(dir, { ...(link ?? {}), url: s.url, workspace_id: ws, product_id: productId });
  out.progress(`Freezing the source (product ${productId}, freeze ${accepted.source_freeze_id})…`);
  const freeze = await waitFor(deadline, "the source freeze", async () => {
    const f = await call(
      "Reading the freeze",
      c.GET("/v1/workspaces/{ws}/source-freezes/{frz}", { params: { path: { ws, frz: accepted.source_freeze_id } } }),
    );
    return f.status === "pending" ? null : f;
  });
  if (freeze.status !== "frozen") {
    const p = (freeze.problem ?? {}) as { detail?: string };
    throw new CliError(
      `The source was ${freeze.status}: ${p.detail ?? freeze.rejection?.code ?? "see the freeze"} (${freeze.rejection?.code ?? freeze.status})`,
      EXIT.failed,
      freeze.rejection?.code ?? `freeze_${freeze.status}`,
      { freeze },
    );
  }
  const revisionId = freeze.revision.id;
  const revision = await call(
    "Reading the revision",
    c.GET("/v1/workspaces/{ws}/revisions/{rev}", { params: { path: { ws, rev: revisionId } } }),
  );
  out.progress(`Frozen: revision ${revisionId}${freeze.replayed ? " (the same tree as before)" : ""}`);
  if (revision.findings.length) out.progress(["Findings:", ...describeFindings(revision.findings)].join("\n"));
  if (revision.capability_contract?.status === "rejected") {
    throw new CliError(
      `capabilities.json was rejected: ${reasonInWords(revision.capability_contract.reason)}`,
      EXIT.failed,
      revision.capability_contract.reason,
      { revision },
    );
  }

  // 2. Confirm the build plan and the contract (asking when a person must).
  await confirmRevision(c, out, ws, productId, revision, values.yes);
  const contract = await call(
    "Reading the contract",
    c.GET("/v1/workspaces/{workspace_id}/revisions/{revision_id}/capability-contract", {
      params: { path: { workspace_id: ws, revision_id: revisionId } },
    }),
  );
  const caps = "capabilities" in contract ? contract.capabilities : [];
  out.progress(
    caps.length
      ? ["The app may use:", ...caps.map((cap) => `  ${describeCapability(cap)}`)].join("\n")
      : "The app uses no capability (no capabilities.json: `capstan init` writes one).",
  );

  // 3. Deploy, stream the build log, print the URL.
  const created = await call(
    "Deploying",
    c.POST("/v1/workspaces/{ws}/revisions/{rev}/deployments", {
      params: { path: { ws, rev: revisionId } },
      body: { environment_type: env },
    }),
  );
  out.progress(`Deploying to ${env} (${created.id})…`);
  if (dir) {
    const now = (await readProject(dir))!;
    await writeProject(dir, {
      ...now,
      last_deployment_id: created.id,
      deployments: { ...(now.deployments ?? {}), [env]: created.id },
    });
  }
  let shown = 0;
  const streamLog = async () => {
    const logs = await call(
      "Reading the build log",
      c.GET("/v1/workspaces/{ws}/deployments/{dep}/logs", { params: { path: { ws, dep: created.id } } }),
    );
    if (logs.build_log.length > shown) {
      process.stderr.write(logs.build_log.slice(shown).replace(/^/gm, "  | "));
      if (!logs.build_log.endsWith("\n")) process.stderr.write("\n");
      shown = logs.build_log.length;
    }
    return logs;
  };
  const dep: TDeployment = await waitFor(deadline, "the deployment", async () => {
    const d = await call(
      "Reading the deployment",
      c.GET("/v1/workspaces/{ws}/deployments/{dep}", { params: { path: { ws, dep: created.id } } }),
    );
    await streamLog().catch(() => undefined);
    return TERMINAL.has(d.status) ? d : null;
  });
  if (dep.status !== "active") {
    const logs = await streamLog().catch(() => null);
    const lines = [
      `The deployment ${dep.status === "blocked" ? "was blocked" : dep.status}: ${reasonInWords(dep.reason_code)}`,
      ...(logs ? ["Last lines of the build log:", ...tail(logs.build_log, 15).map((l) => `  | ${l}`)] : []),
      ...describeFindings(dep.findings.filter((f) => f.severity !== "info")),
    ];
    throw new CliError(lines.join("\n"), EXIT.failed, dep.reason_code ?? `deployment_${dep.status}`, {
      deployment: dep,
    });
  }
  for (const line of describeFindings(dep.findings.filter((f) => f.severity === "warning"))) out.progress(line);
  const surface = dep.surface_id ? await waitForSurface(c, ws, dep.surface_id, deadline) : null;
  const url = surface?.url ?? null;
  out.result(
    url
      ? `Live at ${url}\n  (also ${surface?.path_url ?? ""})\n  logs: capstan logs ${dep.id} --follow · stop: capstan stop ${dep.id}`
      : `Deployed ${dep.id} (no surface yet)`,
    {
      deployment_id: dep.id,
      product_id: productId,
      revision_id: revisionId,
      environment_type: env,
      status: dep.status,
      url,
      path_url: surface?.path_url ?? null,
      surface_id: dep.surface_id ?? null,
    },
  );
  return EXIT.ok;
}

function productName(dir: string): string {
  const base = path
    .basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return (base || "app").slice(0, 60);
}

const kb = (n: number) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`);

async function waitFor<T>(deadline: number, what: string, probe: () => Promise<T | null>): Promise<T> {
  for (let delay = 200; ; delay = Math.min(delay * 1.5, 1000)) {
    const got = await probe();
    if (got !== null) return got;
    if (Date.now() > deadline) throw new CliError(`Gave up waiting for ${what} (--timeout)`, EXIT.failed, "timeout");
    await sleep(delay);
  }
}

async function waitForSurface(c: CapstanClient, ws: string, srf: string, deadline: number) {
  return waitFor(Math.min(deadline, Date.now() + 30_000), "the surface", async () => {
    const sf = await call(
      "Reading the surface",
      c.GET("/v1/workspaces/{ws}/surfaces/{srf}", { params: { path: { ws, srf } } }),
    );
    return sf.status === "active" || sf.status.endsWith("failed") || sf.status === "expired" ? sf : null;
  }).catch(() => null);
}

/** The plan a person last confirmed for this product, to ask only when it changed. */
async function lastConfirmedPlan(
  c: CapstanClient,
  ws: string,
  productId: string,
  except: string,
): Promise<string | null> {
  const list = await call(
    "Listing revisions",
    c.GET("/v1/workspaces/{ws}/revisions", { params: { path: { ws }, query: { product_id: productId, limit: 20 } } }),
  );
  const prev = list.items.find((r) => r.id !== except && r.descriptor_status === "confirmed" && r.descriptor);
  return prev?.descriptor ? planKey(prev.descriptor) : null;
}

const planKey = (d: NonNullable<TRevision["descriptor"]>) =>
  JSON.stringify({ e: d.entrypoint, p: d.build_plan ?? null, r: d.runtime });

async function confirmRevision(
  c: CapstanClient,
  out: TOut,
  ws: string,
  productId: string,
  revision: TRevision,
  yes: boolean,
): Promise<void> {
  if (revision.descriptor_status === "confirmed") return;
  if (!revision.descriptor)
    throw new CliError(
      "No runtime descriptor could be detected for this source (see the findings)",
      EXIT.failed,
      "descriptor_unavailable",
    );
  const known = (await lastConfirmedPlan(c, ws, productId, revision.id)) === planKey(revision.descriptor);
  if (!known) {
    out.progress(["Detected build plan:", ...describeBuildPlan(revision.descriptor)].join("\n"));
    if (!(await confirm("Deploy with this build plan?", yes)))
      throw new CliError("Not deployed: the build plan was not confirmed.", EXIT.needsConfirmation, "not_confirmed");
  }
  const path = { ws, prod: productId, rev: revision.id };
  const first = await c.POST("/v1/workspaces/{ws}/products/{prod}/revisions/{rev}/descriptor:confirm", {
    params: { path },
    body: {},
  });
  if (first.response.ok) return;
  const problem = first.error as { reason?: string; detail?: string } | undefined;
  if (first.response.status !== 409 || problem?.reason !== "scope_widened") {
    await call("Confirming the descriptor", Promise.resolve(first));
    return;
  }
  out.progress(`The contract widens: ${problem.detail ?? ""}`);
  if (!(await confirm("Approve the wider contract?", yes)))
    throw new CliError("Not deployed: the wider contract was not approved.", EXIT.needsConfirmation, "scope_widened");
  await call(
    "Approving the wider contract",
    c.POST("/v1/workspaces/{ws}/products/{prod}/revisions/{rev}/descriptor:confirm", {
      params: { path },
      body: { approve_widening: true },
    }),
  );
}
