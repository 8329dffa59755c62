/**
 * The launcher: the first process of every deployment, inside the sandbox
 * when there is one. Plain JavaScript run by the host's node, written to
 * `<runner dir>/launcher.mjs` at start so it does not depend on how Capstan
 * was bundled. It:
 *  - starts the app (argument vector, env, cwd from the launch file) and
 *    writes its stdout/stderr to a log file, rotated at `log_max` bytes
 *    (the log and one previous generation are kept);
 *  - serves ingress: a Unix socket that forwards each connection to the
 *    app's 127.0.0.1:<port> (inside the sandbox's own network namespace);
 *  - serves the Bridge: 127.0.0.1:<bridge_port> forwarded to a Unix socket
 *    that Capstan serves on the host, so the app reaches the Bridge and
 *    nothing else;
 *  - serves managed-resource forwards (`forwards`: 127.0.0.1:<port> to a
 *    Unix socket), the same way;
 *  - exits with the app's exit code, so its end is visible to the runner.
 * argv[2] is the launch file; argv[3] a marker (`capstan-deployment=<id>`)
 * that lets the reconciler find the process.
 */
export const LAUNCHER_SOURCE = String.raw`import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";

const cfg = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
let out = fs.openSync(cfg.log, "a");
let size = fs.fstatSync(out).size;
function write(chunk) {
  if (size + chunk.length > cfg.log_max) {
    fs.closeSync(out);
    try { fs.renameSync(cfg.log, cfg.log + ".1"); } catch {}
    out = fs.openSync(cfg.log, "a");
    size = 0;
  }
  fs.writeSync(out, chunk);
  size += chunk.length;
}
const note = (s) => write(Buffer.from("[capstan] " + s + "\n"));

function pipe(a, b) {
  a.pipe(b);
  b.pipe(a);
  const end = () => { a.destroy(); b.destroy(); };
  a.on("error", end); b.on("error", end); a.on("close", end); b.on("close", end);
}

const child = spawn(cfg.argv[0], cfg.argv.slice(1), { cwd: cfg.cwd, env: cfg.env, stdio: ["ignore", "pipe", "pipe"] });
child.stdout.on("data", write);
child.stderr.on("data", write);
child.on("error", (e) => { note("could not start " + JSON.stringify(cfg.argv[0]) + ": " + e.message); process.exit(127); });
child.on("exit", (code, signal) => {
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
