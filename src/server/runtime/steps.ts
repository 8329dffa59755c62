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
  constructor(
    private readonly keep = 64 * 1024,
    private readonly sink?: string,
  ) {}
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
  /** A line of Capstan's own (`[capstan] ...`), with the time. */
  note(text: string): void {
    this.write(`${new Date().toISOString()} [capstan] ${text}\n`);
  }
  toString(): string {
    return this.head + (this.dropped ? `\n[capstan] ... ${this.dropped} characters elided ...\n` : "") + this.tail;
  }
  /** The last `n` lines, for a finding's message. */
  lastLines(n: number): string {
    return this.toString().trimEnd().split("\n").slice(-n).join("\n");
  }
}

/**
 * Cuts a stream into lines and writes each with the time it arrived (the
 * format of every log Capstan keeps: `<ISO time> <text>`); `end` writes a
 * last partial line.
 */
export function lineStamper(out: (text: string) => void): { push: (chunk: string) => void; end: () => void } {
  let rest = "";
  return {
    push(chunk) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop() ?? "";
      if (parts.length) {
        const at = new Date().toISOString();
        out(parts.map((l) => `${at} ${l}\n`).join(""));
      }
      if (rest.length > 16_384) {
        out(`${new Date().toISOString()} ${rest}\n`);
        rest = "";
      }
    },
    end() {
      if (rest) out(`${new Date().toISOString()} ${rest}\n`);
      rest = "";
    },
  };
}

/** One step of a deployment as the deployment page shows it (docs/decisions.md "Deployment logs"). */
export type TBuildStep = {
  name: "unpack" | "install" | "build" | "start";
  command: string | null;
  status: "pending" | "running" | "succeeded" | "failed" | "skipped";
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
};

/**
 * The steps of one deploy with their times. Every change is handed to
 * `onChange` in order (a copy; the caller records it where the page reads it).
 */
export class StepRecorder {
  readonly steps: TBuildStep[];
  private chain: Promise<void> = Promise.resolve();
  private began = new Map<string, number>();
  constructor(
    names: Array<[TBuildStep["name"], string | null]>,
    private readonly onChange?: (steps: TBuildStep[]) => Promise<void>,
  ) {
    this.steps = names.map(([name, command]) => ({
      name,
      command,
      status: "pending",
      started_at: null,
      finished_at: null,
      duration_ms: null,
    }));
  }
  private step(name: TBuildStep["name"]): TBuildStep {
    return this.steps.find((s) => s.name === name)!;
  }
  private changed(): void {
    const copy = this.steps.map((s) => ({ ...s }));
    const cb = this.onChange;
    if (cb) this.chain = this.chain.then(() => cb(copy)).catch(() => undefined);
  }
  begin(name: TBuildStep["name"]): void {
    const s = this.step(name);
    this.began.set(name, performance.now());
    Object.assign(s, { status: "running", started_at: new Date().toISOString() });
    this.changed();
  }
  end(name: TBuildStep["name"], ok: boolean): void {
    const s = this.step(name);
    const t0 = this.began.get(name);
    Object.assign(s, {
      status: ok ? "succeeded" : "failed",
      finished_at: new Date().toISOString(),
      duration_ms: t0 === undefined ? null : Math.round(performance.now() - t0),
    });
    this.changed();
  }
  skip(name: TBuildStep["name"]): void {
    this.step(name).status = "skipped";
    this.changed();
  }
  /** The running step failed (a deploy that stops early); steps never reached stay pending. */
  failRunning(): void {
    for (const s of this.steps) if (s.status === "running") this.end(s.name, false);
  }
  /** Resolves once every change was handed over. */
  settled(): Promise<void> {
    return this.chain;
  }
}

export type TStepResult = {
  ok: boolean;
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  error: string | null;
  ms: number;
};

export function runStep(opts: {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  log: BoundedLog;
  uid?: number;
  gid?: number;
}): Promise<TStepResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const ids = opts.uid !== undefined && opts.gid !== undefined ? { uid: opts.uid, gid: opts.gid } : {};
    const child = spawn(opts.file, opts.args, {
      cwd: opts.cwd,
      env: opts.env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      ...ids,
    });
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
    const out = lineStamper((t) => opts.log.write(t));
    const err = lineStamper((t) => opts.log.write(t));
    child.stdout.setEncoding("utf8").on("data", (d: string) => out.push(d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => err.push(d));
    child.on("error", (err) => finish({ ok: false, code: null, signal: null, error: err.message }));
    child.on("close", (code, signal) => {
      out.end();
      err.end();
      // Whatever the step left behind in its group (a daemonised watcher) goes with it.
      if (child.pid) signalGroup(child.pid, "SIGKILL");
      finish({ ok: code === 0 && !timedOut, code, signal, error: null });
    });
  });
}
