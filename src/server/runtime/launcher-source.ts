/**
 * The launcher: the first process of every deployment, inside the sandbox
 * when there is one. Plain JavaScript run by the host's node, written to
 * `<runner dir>/launcher.mjs` at start so it does not depend on how Capstan
 * was bundled. It:
 *  - starts the app (argument vector, env, cwd from the launch file) and
 *    writes its stdout/stderr to a log file, each line prefixed with the
 *    ISO time it was written, rotated at `log_max` bytes (the log and one
 *    previous generation are kept; Capstan flushes it to the blob store in
 *    segments meanwhile); a write that fails (a full disk) is dropped and
 *    counted in the log once the disk has room again, never fatal;
 *  - serves ingress: a Unix socket that forwards each connection to the
 *    app's 127.0.0.1:<port> (inside the sandbox's own network namespace);
 *  - serves the Bridge: 127.0.0.1:<bridge_port> forwarded to a Unix socket
 *    that Capstan serves on the host, so the app reaches the Bridge and
 *    nothing else;
 *  - serves managed-resource forwards (`forwards`: 127.0.0.1:<port> to a
 *    Unix socket), the same way;
 *  - exits with the app's exit code, so its end is visible to the runner.
 * With `hold` set it first waits (at most 10 s) for that file: the runner
 * creates it once the launcher is in the deployment's cgroups, so the app
 * is born inside them.
 * argv[2] is the launch file; argv[3] a marker (`capstan-deployment=<id>`)
 * that lets the reconciler find the process.
 */
export const LAUNCHER_SOURCE = String.raw`import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";

const cfg = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
if (cfg.hold) {
  const until = Date.now() + 10000;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!fs.existsSync(cfg.hold) && Date.now() < until) Atomics.wait(cell, 0, 0, 10);
}
let out = fs.openSync(cfg.log, "a");
let size = fs.fstatSync(out).size;
// A write that fails (the app filled its disk: ENOSPC) drops the output and is counted, never ends the launcher.
let dropped = 0;
function write(chunk) {
  try {
    if (out !== null && size + chunk.length > cfg.log_max) {
      fs.closeSync(out);
      out = null;
      try { fs.renameSync(cfg.log, cfg.log + ".1"); } catch {}
    }
    if (out === null) {
      out = fs.openSync(cfg.log, "a");
      size = fs.fstatSync(out).size;
    }
    if (dropped) {
      const n = Buffer.from(new Date().toISOString() + " [capstan] " + dropped + " bytes of the app's output were dropped: its disk was full\n");
      fs.writeSync(out, n);
      size += n.length;
      dropped = 0;
    }
    fs.writeSync(out, chunk);
    size += chunk.length;
  } catch {
    dropped += chunk.length;
  }
}
const stamp = () => new Date().toISOString() + " ";
const note = (s) => write(Buffer.from(stamp() + "[capstan] " + s + "\n"));
// Every line gets the time it was written (docs/decisions.md "Deployment logs"): each stream is cut
// into lines; a partial line waits at most 250 ms (or 16 KiB) and is then written as a line of its own.
function lines() {
  let rest = "";
  let timer = null;
  const decoder = new TextDecoder();
  const flushRest = () => {
    timer = null;
    if (rest) { write(Buffer.from(stamp() + rest + "\n")); rest = ""; }
  };
  return {
    push(chunk) {
      const text = rest + decoder.decode(chunk, { stream: true });
      const parts = text.split("\n");
      rest = parts.pop();
      if (parts.length) {
        const at = stamp();
        write(Buffer.from(parts.map((l) => at + l + "\n").join("")));
      }
      if (rest.length > 16384) flushRest();
      else if (rest && !timer) timer = setTimeout(flushRest, 250);
    },
    end() { if (timer) clearTimeout(timer); flushRest(); },
  };
}

function pipe(a, b) {
  a.pipe(b);
  b.pipe(a);
  const end = () => { a.destroy(); b.destroy(); };
  a.on("error", end); b.on("error", end); a.on("close", end); b.on("close", end);
}

const child = spawn(cfg.argv[0], cfg.argv.slice(1), { cwd: cfg.cwd, env: cfg.env, stdio: ["ignore", "pipe", "pipe"] });
const outLines = lines();
const errLines = lines();
child.stdout.on("data", (c) => outLines.push(c));
child.stderr.on("data", (c) => errLines.push(c));
child.on("error", (e) => { note("could not start " + JSON.stringify(cfg.argv[0]) + ": " + e.message); process.exit(127); });
child.on("exit", (code, signal) => {
  outLines.end();
  errLines.end();
  note("the app exited (" + (signal ? "signal " + signal : "code " + code) + ")");
  process.exit(code === null ? 1 : code);
});

try { fs.unlinkSync(cfg.ingress_socket); } catch {}
const ingress = net.createServer((c) => pipe(c, net.connect(cfg.app_port, "127.0.0.1")));
ingress.listen(cfg.ingress_socket, () => { try { fs.chmodSync(cfg.ingress_socket, 0o600); } catch {} });
if (cfg.bridge_port) {
  net.createServer((c) => pipe(c, net.connect(cfg.bridge_socket))).listen(cfg.bridge_port, "127.0.0.1");
}
// Managed resources served over HTTP (object buckets): 127.0.0.1:<port> -> the resource's socket.
for (const f of cfg.forwards || []) {
  net.createServer((c) => pipe(c, net.connect(f.socket))).listen(f.port, "127.0.0.1");
}
for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(s, () => {
    child.kill("SIGTERM");
    setTimeout(() => { child.kill("SIGKILL"); process.exit(143); }, 5000).unref();
  });
}
`;
