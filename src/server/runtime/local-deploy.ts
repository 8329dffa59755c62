import net from "node:net";
import path from "node:path";
import { blobStore } from "@/server/platform/blob-store";
import type { TFinding } from "@/server/domain/source/source.types";
import { serveBridgeSocket } from "./bridge-socket";
import { createCgroup } from "./cgroups";
import { CommandSyntaxError, splitCommand } from "./commands";
import { makeDeploymentDir, makeOwnedDirs, unpackAs } from "./deploy-dir";
import { pidsMaxFor, SANDBOX_APP, SANDBOX_RUN, spawnLauncher } from "./deploy-launch";
import { waitHealthy } from "./health";
import { allocateIdentity } from "./identity";
import { processStartTime } from "./process-table";
import { prepareResources } from "./resource-sockets";
import { runLogTail } from "./run-logs";
import type { THostIsolation } from "./sandbox";
import { placeAndRelease, stepSpawn } from "./start";
import { BoundedLog, runStep, StepRecorder } from "./steps";
import type { TDeployOutcome, TDeploySpec, THealth, TIsolationReport, TLimitHit, TRuntimeState } from "./runner";

/**
 * One deployment on the local runner: directory (a size-capped tmpfs where
 * the host can mount one) owned by the deployment's own uid, snapshot
 * unpacked as that uid, install and build under bubblewrap (or plain) as
 * that uid with rlimits, then the launcher under the host's sandbox
 * (gVisor, bubblewrap or none) in the deployment's cgroups, and the health
 * check over the ingress socket.
 */
export type TDeployContext = {
  root: string;
  hostId: string;
  host: THostIsolation;
  stepTimeoutMs: number;
  gvisorHealthMs: number;
  logMaxBytes: number;
  uidRange: { base: number; count: number };
  report: (ids: { uid: number; gid: number; dedicated: boolean } | null) => TIsolationReport;
  isRunning: (state: TRuntimeState) => Promise<boolean>;
  limitHits: (state: TRuntimeState) => Promise<TLimitHit[]>;
};

/** Object buckets inside the sandbox: 127.0.0.1:4320, 4321, ... */
const SANDBOX_BUCKET_PORT = 4320;
const SANDBOX_BRIDGE_PORT = 4319;
const MAX_SOCKET_PATH = 100;
/** How long a sandbox may take to bring its launcher up (the health deadline starts after). */
const SANDBOX_START_MS = 30_000;

export async function deployLocal(ctx: TDeployContext, spec: TDeploySpec): Promise<TDeployOutcome> {
  const { host, root } = ctx;
  const dir = path.join(root, spec.deploymentId);
  const appDir = path.join(dir, "app");
  const runDir = path.join(dir, "run");
  const logDir = path.join(dir, "log");
  const homeDir = path.join(dir, "home");
  const findings: TFinding[] = [];
  const evidence = {
    build_log: null as TDeployOutcome["evidence"]["build_log"],
    health_attempts: null as TDeployOutcome["evidence"]["health_attempts"],
  };
  let buildLog: BoundedLog | null = null;
  let isolation = ctx.report(null);
  const plan = spec.buildPlan;
  const steps = new StepRecorder(
    [
      ["unpack", null],
      ["install", plan.install.command],
      ["build", plan.build.command],
      ["start", plan.start.command],
    ],
    spec.onSteps,
  );
  const fail = async (
    reasonCode: string,
    code: string,
    message: string,
    state: TRuntimeState | null = null,
    health: THealth | null = null,
  ) => {
    steps.failRunning();
    findings.push({ kind: "runtime", severity: "error", code, message: message.slice(0, 2000) });
    evidence.build_log = buildLog ? await saveText(buildLog.toString()) : null;
    await steps.settled();
    return { ok: false as const, reasonCode, state, isolation, health, evidence, findings, steps: steps.steps };
  };
  const limits = spec.limits;
  const sandboxed = host.sandbox !== "none";

  // Every command is checked before anything runs: a shell-syntax start command fails in a second, not after a build.
  let install: string[] | null, build: string[] | null, start: string[];
  try {
    install = plan.install.command ? splitCommand(plan.install.command) : null;
    build = plan.build.command ? splitCommand(plan.build.command) : null;
    start = splitCommand(plan.start.command);
  } catch (err) {
    if (!(err instanceof CommandSyntaxError)) throw err;
    return fail(
      "command_invalid",
      "command_invalid",
      `${JSON.stringify(err.command)}: ${err.message}. Edit the build plan when you confirm the descriptor.`,
    );
  }
  const workdir = path.posix.normalize(plan.workdir);
  if (!workdir.startsWith("/") || workdir.split("/").includes("..")) {
    return fail(
      "workdir_invalid",
      "workdir_invalid",
      `the workdir ${JSON.stringify(plan.workdir)} must be a path inside the repository`,
    );
  }
  const socketLen = path.join(runDir, "ingress.sock").length;
  if (socketLen > MAX_SOCKET_PATH) {
    return fail(
      "runner_misconfigured",
      "runner_dir_too_long",
      `the runner directory ${root} is too deep for Unix sockets (${socketLen} > ${MAX_SOCKET_PATH} characters): set CAPSTAN_RUNNER_DIR to a shorter path`,
    );
  }

  // The directory (tmpfs capped at the disk limit where possible), then the deployment's own uid owns it.
  steps.begin("unpack");
  const tmpfs = await makeDeploymentDir(dir, host.tmpfs ? limits.disk_mb * 1024 * 1024 : null);
  const ids = await allocateIdentity(root, spec.deploymentId, dir, ctx.uidRange);
  isolation = ctx.report(ids);
  await makeOwnedDirs([appDir, logDir, homeDir], ids.uid, ids.gid, ids.dedicated);
  await makeOwnedDirs([runDir], ids.uid, ids.gid, ids.dedicated);
  buildLog = new BoundedLog(64 * 1024, path.join(logDir, "build.log"));

  const tarball = await blobStore().get(spec.snapshot.sha256);
  if (!tarball)
    return fail(
      "snapshot_missing",
      "snapshot_missing",
      `the revision's snapshot ${spec.snapshot.uri} is not in the blob store`,
    );
  const untar = await unpackAs(tarball, appDir, ids.dedicated ? { uid: ids.uid, gid: ids.gid } : null);
  if (untar)
    return fail("snapshot_unpack_failed", "snapshot_unpack_failed", `the snapshot could not be unpacked: ${untar}`);
  steps.end("unpack", true);

  const cwdHost = path.join(appDir, workdir);
  const cwdInside = path.posix.join(SANDBOX_APP, workdir);
  const stepsSandboxed = host.build_sandbox === "bubblewrap";
  const baseEnv = (home: string): Record<string, string> => ({
    PATH: [path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
    HOME: home,
    NODE_ENV: "production",
  });

  for (const [name, argv, network] of [
    ["install", install, true],
    ["build", build, false],
  ] as const) {
    if (!argv) {
      steps.skip(name);
      continue;
    }
    steps.begin(name);
    buildLog.note(
      `${name}: ${argv.join(" ")}${stepsSandboxed ? ` (sandboxed${network ? ", network for dependencies" : ", no network"})` : ""}`,
    );
    const c = stepSpawn({
      host,
      limits,
      ids,
      argv,
      network,
      mounts: { writable: [[appDir, SANDBOX_APP]], readonly: [] },
      env: baseEnv("/tmp"),
      cwdInside,
    });
    const r = await runStep({
      ...c,
      cwd: stepsSandboxed ? "/" : cwdHost,
      env: stepsSandboxed ? {} : baseEnv(homeDir),
      timeoutMs: ctx.stepTimeoutMs,
      log: buildLog,
    });
    buildLog.note(`${name} ${r.ok ? "finished" : "failed"} in ${r.ms} ms`);
    if (r.ok) steps.end(name, true);
    if (!r.ok) {
      const why = r.timedOut
        ? `did not finish within ${ctx.stepTimeoutMs} ms`
        : r.error
          ? `could not start (${r.error})`
          : `exited with ${r.signal ? `signal ${r.signal}` : `code ${r.code}`}`;
      return fail(
        `${name}_failed`,
        `${name}_failed`,
        `The ${name} step \`${argv.join(" ")}\` ${why}. Last output:\n${buildLog.lastLines(12)}`,
      );
    }
  }

  // Start: the launcher (and the app under it) in its own process group that outlives this process.
  steps.begin("start");
  buildLog.note(`start: ${start.join(" ")}`);
  const appPort = sandboxed ? plan.port : await freePort();
  const bridgePort = sandboxed ? SANDBOX_BRIDGE_PORT : await freePort();
  const ingressSocket = path.join(runDir, "ingress.sock");
  const bridgeSocket = path.join(runDir, "bridge.sock");
  const owner = ids.dedicated ? { uid: ids.uid, gid: ids.gid } : null;
  await serveBridgeSocket(spec.deploymentId, bridgeSocket, spec.bridge, owner);
  const resources =
    spec.resources?.length && spec.resourceHandlers
      ? await prepareResources({
          deploymentId: spec.deploymentId,
          runDir,
          insideRun: sandboxed ? SANDBOX_RUN : runDir,
          resources: spec.resources,
          handlers: spec.resourceHandlers,
          bucketPort: async (i) => (sandboxed ? SANDBOX_BUCKET_PORT + i : freePort()),
          owner,
        })
      : null;
  const appEnv: Record<string, string> = {
    // Resource variables first: Capstan's own names below cannot be overridden by them.
    ...resources?.env,
    ...baseEnv(sandboxed ? "/tmp" : homeDir),
    PORT: String(appPort),
    CAPSTAN_BRIDGE_URL: `http://127.0.0.1:${bridgePort}`,
    CAPSTAN_DEPLOYMENT_ID: spec.deploymentId,
  };
  const cg = host.cgroups;
  if (cg) await createCgroup(cg, spec.deploymentId, limits, pidsMaxFor(limits.processes, host.sandbox));
  // gVisor applies the cgroup itself (runsc joins the one made above); bubblewrap and plain processes wait to be placed.
  const hold = cg && host.sandbox !== "gvisor" ? path.join(runDir, "go") : null;
  const marker = `capstan-deployment=${spec.deploymentId}`;
  const launched = await spawnLauncher({
    root,
    deploymentId: spec.deploymentId,
    host,
    cgroups: cg,
    limits,
    ids,
    logMaxBytes: ctx.logMaxBytes,
    dirs: { dir, appDir, runDir, logDir },
    start,
    cwdHost,
    cwdInside,
    appEnv,
    appPort,
    bridgePort,
    ingressSocket,
    bridgeSocket,
    forwards: resources?.forwards ?? [],
    hold,
    marker,
  });
  if ("error" in launched)
    return fail("start_failed", "start_failed", `the app could not be started: ${launched.error}`);
  const pid = launched.pid;
  const startTime = (await processStartTime(pid)) ?? "";
  const state: TRuntimeState = {
    host: ctx.hostId,
    dir,
    pid,
    pgid: pid,
    start_time: startTime,
    sandbox: host.sandbox,
    ingress_socket: ingressSocket,
    bridge_socket: bridgeSocket,
    app_port: appPort,
    ...(resources?.state.length ? { resources: resources.state } : {}),
    uid: ids.uid,
    gid: ids.gid,
    tmpfs,
    cgroup: !!cg,
    limits,
  };
  await spec.onStarted?.(state);
  if (cg && hold && !(await placeAndRelease(cg, spec.deploymentId, pid, marker, hold))) {
    buildLog.note("the launcher could not be placed in its cgroups in time; it was released anyway");
  }

  // Under gVisor every system call of the app is served by its user-space kernel (ptrace platform): a start through
  // npm takes seconds longer than on the host kernel (tens on a busy host), so the app gets at least
  // CAPSTAN_RUNNER_GVISOR_HEALTH_MS to begin answering (docs/decisions.md "gVisor start on a busy host").
  const health = await waitHealthy({
    socketPath: ingressSocket,
    path: plan.health.path,
    deadlineMs: plan.health.timeout_ms,
    listenFloorMs: host.sandbox === "gvisor" ? ctx.gvisorHealthMs : undefined,
    sandboxStartMs: SANDBOX_START_MS,
    alive: () => ctx.isRunning(state),
  });
  evidence.health_attempts = await saveText(JSON.stringify(health.attempts, null, 1));
  const last = health.attempts[health.attempts.length - 1];
  const healthRecord = {
    checked_at: last?.at ?? new Date().toISOString(),
    attempts: health.attempts.length,
    latency_ms: health.latencyMs,
  };
  if (!health.ok) {
    const hits = await ctx.limitHits(state);
    if (hits.length) {
      findings.push(
        ...hits.map((h) => ({
          kind: "isolation",
          severity: "error" as const,
          code: "isolation_violation",
          message: `${h.message} It happened while starting.`,
        })),
      );
      return fail(
        "isolation_violation",
        "isolation_violation",
        `The app ran into its limits before it answered ${plan.health.path}.`,
        state,
        healthRecord,
      );
    }
    const tail = await runLogTail(dir, 4_000);
    const lastTry = last ? (last.status !== null ? `answered ${last.status}` : last.error) : "was never tried";
    return fail(
      health.exited ? "start_exited" : "health_check_failed",
      health.exited ? "start_exited" : "health_check_failed",
      health.exited
        ? `The app exited before it answered ${plan.health.path}. Last output:\n${tail.trimEnd().split("\n").slice(-12).join("\n")}`
        : `${plan.health.path} did not answer 2xx/3xx within ${health.waitedMs} ms (${health.attempts.length} attempts; the last ${lastTry}). Check that the app listens on $PORT and serves ${plan.health.path}, or change the health path when you confirm the descriptor.`,
      state,
      healthRecord,
    );
  }
  steps.end("start", true);
  buildLog.note(
    `the app answered ${plan.health.path} after ${health.attempts.length} attempt${health.attempts.length === 1 ? "" : "s"}`,
  );
  evidence.build_log = await saveText(buildLog.toString());
  await steps.settled();
  return {
    ok: true,
    state,
    isolation,
    health: healthRecord,
    endpoint: { address: `unix:${ingressSocket}` },
    evidence,
    findings,
    steps: steps.steps,
  };
}

async function saveText(text: string) {
  const blob = await blobStore().put(Buffer.from(text, "utf8"), "text/plain");
  return { uri: blob.uri, sha256: blob.sha256, size_bytes: blob.size_bytes };
}

/** A free TCP port on loopback (only without a sandbox: inside one the app has its own network namespace). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
