// A process started by npm (`npm start`, `npm run worker`) is left behind when
// npm gets SIGTERM: npm and its `sh -c` exit within ~50 ms without relaying the
// signal, and the node process is re-parented (docs/decisions.md "Signals and
// the production artifact"). So such a process watches its parent: when the
// parent it was started by is gone, it signals itself SIGTERM and drains
// exactly as if the signal had reached it. Started any other way (node
// directly, PID 1 in a container behind an init) it does nothing: the signal
// arrives itself.
import { clearInterval, setInterval } from "node:timers";

const EVERY_MS = 100;

/** @param {{ log?: (msg: string) => void; force?: boolean }} [opts] */
export function followParent(opts = {}) {
  const underNpm = !!process.env.npm_lifecycle_event || opts.force === true;
  if (!underNpm || process.platform === "win32") return false;
  const parent = process.ppid;
  const log = opts.log ?? ((msg) => console.log(`[capstan] ${msg}`));
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    log(`the process that started this one (pid ${parent}, npm) is gone: stopping as on SIGTERM`);
    process.kill(process.pid, "SIGTERM");
  }, EVERY_MS);
  timer.unref();
  return true;
}
