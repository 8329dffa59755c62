import { Pool } from "undici";
import type { Runner, TLogCursor, TLogRead, TRuntimeState, TUsageReading } from "./runner";
import { GATEWAY_KEY_HEADER } from "./surface-proxy";

/** What a replica may ask of the runner host a deployment runs on. */
export type TRunnerOps = Pick<
  Runner,
  "stop" | "isRunning" | "runLog" | "buildLog" | "logSize" | "logSince" | "readLog" | "usage"
>;

const RPC_TIMEOUT_MS = 10_000;
const g = globalThis as unknown as { __capstanRunnerRpcPools?: Map<string, Pool> };
const pools = (g.__capstanRunnerRpcPools ??= new Map<string, Pool>());

/**
 * The runner operations of another host, through its gateway
 * (runner-gateway.ts). Each call has a deadline; a host that does not
 * answer is an error for the caller to handle (a stop falls back on that
 * host's own reconciler, which removes what no live deployment owns).
 */
export class RemoteRunnerOps implements TRunnerOps {
  constructor(
    readonly endpoint: string,
    private readonly key: string,
  ) {}

  private async call<T>(deploymentId: string, op: string, body: Record<string, unknown>): Promise<T> {
    let pool = pools.get(this.endpoint);
    if (!pool) {
      pool = new Pool(this.endpoint, {
        connections: 8,
        keepAliveTimeout: 4_000,
        connectTimeout: 3_000,
        headersTimeout: RPC_TIMEOUT_MS,
        bodyTimeout: RPC_TIMEOUT_MS,
      });
      pools.set(this.endpoint, pool);
    }
    const res = await pool.request({
      path: `/runner/v1/deployments/${deploymentId}/${op}`,
      method: "POST",
      signal: AbortSignal.timeout(RPC_TIMEOUT_MS),
      headers: { "content-type": "application/json", [GATEWAY_KEY_HEADER]: this.key },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200)
      throw new Error(`runner host ${this.endpoint} answered ${res.statusCode} to ${op}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  }

  async stop(id: string, state: TRuntimeState | null): Promise<void> {
    await this.call(id, "stop", { state });
  }
  async isRunning(state: TRuntimeState): Promise<boolean> {
    return (await this.call<{ running: boolean }>(state.dir.split("/").pop() ?? "", "is-running", { state })).running;
  }
  async runLog(id: string, maxBytes: number): Promise<string> {
    return (await this.call<{ text: string }>(id, "run-log", { max_bytes: maxBytes })).text;
  }
  async buildLog(id: string, maxBytes: number): Promise<string> {
    return (await this.call<{ text: string }>(id, "build-log", { max_bytes: maxBytes })).text;
  }
  async logSize(id: string): Promise<number> {
    return (await this.call<{ size: number }>(id, "log-size", {})).size;
  }
  async logSince(id: string, offset: number, maxBytes: number): Promise<string> {
    return (await this.call<{ text: string }>(id, "log-since", { offset, max_bytes: maxBytes })).text;
  }
  async readLog(id: string, cursor: TLogCursor | null, maxBytes: number, final: boolean): Promise<TLogRead> {
    return this.call<TLogRead>(id, "read-log", { cursor, max_bytes: maxBytes, final });
  }
  async usage(state: TRuntimeState, opts: { memory?: boolean } = {}): Promise<TUsageReading | null> {
    return (
      await this.call<{ usage: TUsageReading | null }>(state.dir.split("/").pop() ?? "", "usage", {
        state,
        memory: opts.memory !== false,
      })
    ).usage;
  }
}

/** A host that is lost or unknown: nothing runs there any more as far as this replica can tell. */
export const GONE_RUNNER: TRunnerOps = {
  stop: async () => undefined,
  isRunning: async () => false,
  runLog: async () => "",
  buildLog: async () => "",
  logSize: async () => 0,
  logSince: async () => "",
  readLog: async (_id, cursor) => ({ text: "", next: cursor ?? { ino: 0, offset: 0 }, lost: false }),
  usage: async () => null,
};
