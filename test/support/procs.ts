import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import net, { type AddressInfo } from "node:net";

/**
 * Process helpers for the tests that start Capstan the way an operator does
 * (test/signals, production-artifact, pgbouncer, runner-hosts-drain).
 */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `done` until it is true, or throws after `timeoutMs` naming `what`. */
export async function until(
  what: string,
  done: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** The status of GET `url`, or null when nothing answers (refused, reset, 2 s timeout). */
export async function status(url: string): Promise<number | null> {
  return fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => r.status,
    () => null,
  );
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export type TProc = {
  child: ChildProcess;
  output: string[];
  log: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/** Spawns a command (no shell) in its own process group, collecting stdout and stderr. */
export function start(cmd: string, args: string[], opts: SpawnOptions): TProc {
  const child = spawn(cmd, args, { detached: true, stdio: ["ignore", "pipe", "pipe"], ...opts });
  const output: string[] = [];
  child.stdout!.on("data", (c: Buffer) => output.push(c.toString()));
  child.stderr!.on("data", (c: Buffer) => output.push(c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, output, log: () => output.join(""), exit };
}

/** Kills a process group started by `start` (cleanup only). */
export function killGroup(p: TProc | undefined): void {
  if (!p?.child.pid) return;
  try {
    process.kill(-p.child.pid, "SIGKILL");
  } catch {
    // gone already
  }
}

/**
 * An HTTP request held in flight: the headers and the first half of the body
 * are sent now, the rest when `finish()` is called; resolves with the status
 * line's code and the body. Nothing in between is buffered by the server side
 * but the request itself, so a server that stops mid-request is caught.
 */
export async function heldRequest(
  port: number,
  method: string,
  pathname: string,
  headers: Record<string, string>,
  body: string,
) {
  const sock = net.connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => sock.once("connect", resolve).once("error", reject));
  const chunks: Buffer[] = [];
  sock.on("data", (c: Buffer) => chunks.push(c));
  const closed = new Promise<void>((resolve) => sock.once("close", () => resolve()));
  sock.on("error", () => undefined);
  const bytes = Buffer.from(body);
  const head = [
    `${method} ${pathname} HTTP/1.1`,
    "Host: 127.0.0.1",
    "Connection: close",
    `Content-Length: ${bytes.length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ].join("\r\n");
  const half = Math.floor(bytes.length / 2);
  sock.write(`${head}\r\n\r\n`);
  sock.write(bytes.subarray(0, half));
  return {
    finish: async (): Promise<{ status: number; body: string }> => {
      // Not end(): a half-closed socket makes the server drop the answer. Connection: close ends it.
      sock.write(bytes.subarray(half));
      await closed;
      const text = Buffer.concat(chunks).toString("utf8");
      const statusCode = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      return { status: statusCode, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
    },
  };
}
