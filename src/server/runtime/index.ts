import path from "node:path";
import { env } from "@/server/platform/env";
import { LocalRunner } from "./local-runner";
import type { Runner } from "./runner";

export type {
  Runner,
  TRuntimeState,
  TIsolationReport,
  THealth,
  TDeployOutcome,
  TLimitHit,
  TLimits,
  TBuildStep,
  TLogCursor,
  TLogRead,
} from "./runner";

let shared: LocalRunner | undefined;

/** The runner of this process: the local process runner, configured from the environment. */
export function runner(): Runner {
  const e = env();
  // Runtime configuration, not a file of the app: keep Turbopack from tracing the whole project.
  const root = path.resolve(/* turbopackIgnore: true */ e.CAPSTAN_RUNNER_DIR ?? path.join(e.CAPSTAN_DATA_DIR, "run"));
  if (!shared || shared.cfg.root !== root || shared.cfg.sandbox !== e.CAPSTAN_RUNNER_SANDBOX) {
    shared = new LocalRunner({
      root,
      sandbox: e.CAPSTAN_RUNNER_SANDBOX,
      stepTimeoutMs: e.CAPSTAN_RUNNER_STEP_TIMEOUT_MS,
      gvisorHealthMs: e.CAPSTAN_RUNNER_GVISOR_HEALTH_MS,
      logMaxBytes: e.CAPSTAN_RUNNER_LOG_MAX_BYTES,
      uidRange: { base: e.CAPSTAN_RUNNER_UID_BASE, count: e.CAPSTAN_RUNNER_UID_COUNT },
    });
  }
  return shared;
}
