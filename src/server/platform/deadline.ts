import { EventEmitter } from "node:events";

/**
 * A per-call deadline for undici's `request`: an EventEmitter it accepts as its
 * `signal` and one timer, cleared by `done()` once the call settled. Cheaper
 * than `AbortSignal.timeout` on hot paths: that one registers its signal with a
 * FinalizationRegistry and keeps a weak timer until it fires or the signal is
 * collected, and undici adds an EventTarget listener to it (measured in
 * docs/decisions.md "Deadlines without AbortSignal.timeout").
 */
export type TDeadline = {
  readonly signal: EventEmitter;
  /** True once the deadline passed (the call was aborted by it). */
  expired(): boolean;
  /** Clears the timer; call it on every path once the call settled. */
  done(): void;
};

export function deadline(ms: number): TDeadline {
  const signal = new EventEmitter();
  let passed = false;
  const timer = setTimeout(() => {
    passed = true;
    signal.emit("abort");
  }, ms);
  return {
    signal,
    expired: () => passed,
    done: () => clearTimeout(timer),
  };
}
