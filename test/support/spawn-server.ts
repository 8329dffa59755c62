import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

/**
 * Starts test/support/app-server.ts in its own process (same DATABASE_URL,
 * master key and data dir as the test file, inherited through the env) and
 * resolves once it prints "listening <port>".
 */
export type TServer = { child: ChildProcess; port: number; output: string[] };

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const SERVER = path.join(ROOT, "test", "support", "app-server.ts");

export function startServer(extraEnv: Record<string, string> = {}, timeoutMs = 90_000): Promise<TServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", SERVER], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0", CAPSTAN_WORKERS: "0", LOG_LEVEL: "warn", ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const server: TServer = { child, port: 0, output: [] };
    const timer = setTimeout(
      () => reject(new Error(`app-server did not start in time:\n${server.output.join("")}`)),
      timeoutMs,
    );
    let buffer = "";
    child.stdout.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      server.output.push(text);
      buffer += text;
      const m = /^listening (\d+)$/m.exec(buffer);
      if (m && !server.port) {
        server.port = Number(m[1]);
        clearTimeout(timer);
        resolve(server);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => server.output.push(chunk.toString()));
    child.on("exit", (code, signal) => {
      if (!server.port) {
        clearTimeout(timer);
        reject(new Error(`app-server exited (${code ?? signal}) before listening:\n${server.output.join("")}`));
      }
    });
  });
}

export async function stopServer(s: TServer): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => s.child.once("exit", () => resolve()));
  s.child.kill("SIGTERM");
  const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 10_000));
  if ((await Promise.race([exited, timeout])) === "timeout") {
    s.child.kill("SIGKILL");
    await exited;
  }
}
