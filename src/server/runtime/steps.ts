import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { signalGroup, killGroup } from "./process-table";

/**
 * One build step (install or build) as a child process group with a
 * deadline. Output goes to a bounded buffer: the first and the last
 * `keep` bytes are kept, the middle is elided with a marker.
 */
export class BoundedLog {
  private head = "";
  private tail = "";
  private dropped = 0;
  private sinkBytes = 0;
  /** `sink`: a file that follows the log while it is written (read by the logs endpoint meanwhile), capped at 4 x keep. */
  constructor(private readonly keep = 64 * 1024, private readonly sink?: string) {}
  write(text: string): void {
    if (this.sink && this.sinkBytes < this.keep * 4) {
      this.sinkBytes += text.length;
      try {
        appendFileSync(this.sink, text);
      } catch {
        // the directory is being removed (a stop): the evidence copy is what counts
      }
    }
    if (this.head.length < this.keep) {
      const room = this.keep - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (!text) return;
    this.tail += text;
    if (this.tail.length > this.keep) {
      this.dropped += this.tail.length - this.keep;
      this.tail = this.tail.slice(-this.keep);
    }
  }
  toString(): string {
    return this.head + (this.dropped ? `\n[capstan] ... ${this.dropped} characters elided ...\n` : "") + this.tail;
  }
  /** The last `n` lines, for a finding's message. */
  lastLines(n: number): string {
    return this.toString().trimEnd().split("\n").slice(-n).join("\n");
  }
}

export type TStepResult = { ok: boolean; code: number | null; signal: string | null; timedOut: boolean; error: string | null; ms: number };

export function runStep(opts: { file: string; args: string[]; cwd: string; env: Record<string, string>; timeoutMs: number; log: BoundedLog }): Promise<TStepResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(opts.file, opts.args, { cwd: opts.cwd, env: opts.env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let timedOut = false;
    let settled = false;
    const finish = (r: Omit<TStepResult, "ms" | "timedOut">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, timedOut, ms: Date.now() - started });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) void killGroup(child.pid, 2_000);
    }, opts.timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (d: string) => opts.log.write(d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => opts.log.write(d));
    child.on("error", (err) => finish({ ok: false, code: null, signal: null, error: err.message }));
    child.on("close", (code, signal) => {
      // Whatever the step left behind in its group (a daemonised watcher) goes with it.
      if (child.pid) signalGroup(child.pid, "SIGKILL");
      finish({ ok: code === 0 && !timedOut, code, signal, error: null });
    });
  });
}
