import { mkdtempSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { checkedFetch } from "./openapi-responses";
import { freePort, start, until, type TProc } from "./procs";

/**
 * A runner host as an operator starts one: the production worker entry
 * (`node scripts/worker.mjs`, what `npm run worker` runs; roles worker,runner)
 * with its own CAPSTAN_DATA_DIR (so its own runner dir and host id) and its own
 * gateway (CAPSTAN_RUNNER_LISTEN on a free loopback port, advertised as
 * CAPSTAN_RUNNER_ENDPOINT). Started in its own process group; `kill -9` of the
 * host is `child.kill("SIGKILL")` (its hosted apps live on, as on a real host).
 */
export type TRunnerHost = TProc & { dir: string; hostId: string; endpoint: string };

const ROOT = path.resolve(import.meta.dirname, "..", "..");

export async function startRunnerHost(env: Record<string, string>, timeoutMs = 180_000): Promise<TRunnerHost> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "crh-"));
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const p = start(process.execPath, [path.join(ROOT, "scripts", "worker.mjs")], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: "info",
      ...env,
      CAPSTAN_DATA_DIR: dir,
      CAPSTAN_RUNNER_LISTEN: `127.0.0.1:${port}`,
      CAPSTAN_RUNNER_ENDPOINT: endpoint,
    },
  });
  const host: TRunnerHost = { ...p, dir, hostId: `${os.hostname()}:${path.resolve(dir, "run")}`, endpoint };
  await until(
    `the runner host in ${dir} to start`,
    () => {
      if (p.child.exitCode !== null || p.child.signalCode !== null)
        throw new Error(`runner host exited (${p.child.exitCode ?? p.child.signalCode}):\n${p.log()}`);
      return p.log().includes("worker.process_started");
    },
    timeoutMs,
    100,
  );
  return host;
}

export const running = (h: TRunnerHost) => h.child.exitCode === null && h.child.signalCode === null;

/** GET through a web replica with any Host header; never throws (status 0 when nothing answered). */
export function rawGet(port: number, p: string, host?: string): Promise<{ status: number; body: string; at: number }> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: p, headers: host ? { host } : {}, agent: false, timeout: 30_000 },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, at: Date.now() }));
        res.on("error", (err) => resolve({ status: 0, body: String(err), at: Date.now() }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", (err) => resolve({ status: 0, body: String(err), at: Date.now() }));
    req.end();
  });
}

/** The problem reason of a non-2xx surface answer (null when the body is not a problem). */
export function reasonOf(body: string): string | null {
  try {
    return (JSON.parse(body) as { reason?: string }).reason ?? null;
  } catch {
    return null;
  }
}

export type TSample = { at: number; surface: string; port: number; status: number; reason: string | null };

/**
 * Polls every surface through every web replica, round after round, until
 * `stop()`; resolves with every answer. One round at a time (each request
 * waits for its answer), so the poller measures, it does not load the machine.
 */
export function pollSurfaces(surfaces: string[], ports: number[], pauseMs = 20) {
  const samples: TSample[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const round = await Promise.all(
        surfaces.flatMap((srf) =>
          ports.map(async (port) => {
            const r = await rawGet(port, `/s/${srf}/health`);
            return {
              at: r.at,
              surface: srf,
              port,
              status: r.status,
              reason: r.status === 200 ? null : reasonOf(r.body),
            };
          }),
        ),
      );
      samples.push(...round);
      await new Promise((r) => setTimeout(r, pauseMs));
    }
    return samples;
  })();
  const perRound = surfaces.length * ports.length;
  return {
    samples,
    /** Resolves once `n` more whole rounds are recorded (a window of traffic counted in answers, not in sleep). */
    rounds: (n: number) => {
      const want = samples.length + n * perRound;
      return until(`${n} polling rounds`, () => samples.length >= want, 60_000, pauseMs);
    },
    stop: async () => {
      stopped = true;
      return done;
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TJson = Record<string, any>;

/** A /v1 call to one web replica, its answer checked against the API document. */
export async function callReplica(
  port: number,
  method: string,
  p: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; json: TJson; text: string }> {
  const res = await checkedFetch(`http://127.0.0.1:${port}${p}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: TJson = {};
  try {
    json = text ? (JSON.parse(text) as TJson) : {};
  } catch {
    json = {};
  }
  return { status: res.status, json, text };
}
