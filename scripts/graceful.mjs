// Graceful stop of an HTTP server process (scripts/server.mjs behind `npm start`,
// and test/support/app-server.ts): on SIGTERM or SIGINT
//   1. the app's lifecycle turns /readyz 503 and stops starting worker ticks
//      (globalThis.__capstanStop.begin, registered at boot: src/server/shutdown.ts);
//      with CAPSTAN_SHUTDOWN_DELAY_MS (default 0) the server keeps accepting that
//      long first, so a load balancer polling /readyz takes it out of rotation;
//   2. the listening socket closes (new connections are refused) and idle
//      keep-alive connections are closed, again every 50 ms as in-flight
//      requests finish, until none is left or CAPSTAN_SHUTDOWN_GRACE_MS
//      (default 20000) passed; then the remaining connections are cut;
//   3. the app finishes (worker ticks still running, pending Bridge record
//      batches, database pools and the instance lock) within what is left of
//      the grace plus 5 s, and the process exits 0 (1 when that hard bound hit).
// So the process is gone at most delay + grace + 5 s after the signal.
import { clearInterval, clearTimeout, setInterval, setTimeout } from "node:timers";

/**
 * @param {import("node:http").Server} server
 * @param {{ graceMs?: number; delayMs?: number; log?: (msg: string) => void; app?: { begin(): void; finish(ms: number): Promise<void> } }} [opts]
 */
export function installGracefulStop(server, opts = {}) {
  const graceMs = opts.graceMs ?? Number(process.env.CAPSTAN_SHUTDOWN_GRACE_MS ?? "20000");
  const delayMs = opts.delayMs ?? Number(process.env.CAPSTAN_SHUTDOWN_DELAY_MS ?? "0");
  const log = opts.log ?? ((msg) => console.log(`[server] ${msg}`));
  let stopping = false;
  const stop = (signal) => {
    // npm relays the signal it got too: stop once.
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    const app = opts.app ?? globalThis.__capstanStop;
    log(`${signal}: draining (delay ${delayMs} ms, grace ${graceMs} ms)`);
    app?.begin();
    const hard = setTimeout(
      () => {
        log("graceful stop exceeded its bound; exiting");
        process.exit(1);
      },
      delayMs + graceMs + 5_000,
    );
    hard.unref();
    setTimeout(() => drain(started), delayMs);
  };
  const drain = (started) => {
    const app = opts.app ?? globalThis.__capstanStop;
    const closed = new Promise((resolve) => server.close(() => resolve(true)));
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    let timer;
    const deadline = new Promise((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
    void Promise.race([closed, deadline])
      .then(async (drained) => {
        clearInterval(sweep);
        clearTimeout(timer);
        if (!drained) {
          log("grace period over: closing the remaining connections");
          server.closeAllConnections();
        }
        await app?.finish(Math.max(0, graceMs - (Date.now() - started - delayMs)));
      })
      .catch((err) => log(`graceful stop failed: ${String(err?.stack ?? err)}`))
      .finally(() => {
        log(`stopped in ${Date.now() - started} ms`);
        process.exit(0);
      });
  };
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => stop(signal));
}
