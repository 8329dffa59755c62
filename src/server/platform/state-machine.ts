import { AppError } from "./errors";

/**
 * A resource's transition table: (from, event) -> to. `from: null` is the
 * creation edge. Each resource declares one table (`<area>.states.ts`) and
 * every status write goes through `next()`; an edge not in the table is a
 * thrown error, never a silent write.
 */
export type TTransition<S extends string, E extends string> = { from: S | null; event: E; to: S };

export type TStateMachine<S extends string, E extends string> = {
  readonly name: string;
  readonly transitions: ReadonlyArray<TTransition<S, E>>;
  /** The state `event` leads to from `from`, or an AppError (409 illegal_transition). */
  next(from: S | null, event: E): S;
  can(from: S | null, event: E): boolean;
  /** States with no outgoing edge. */
  readonly terminal: ReadonlySet<S>;
};

export function stateMachine<S extends string, E extends string>(
  name: string,
  states: readonly S[],
  transitions: ReadonlyArray<TTransition<S, E>>,
): TStateMachine<S, E> {
  const table = new Map<string, S>();
  for (const t of transitions) {
    const key = `${t.from ?? ""}|${t.event}`;
    if (table.has(key)) throw new Error(`${name}: duplicate transition ${key}`);
    table.set(key, t.to);
  }
  const withExit = new Set(transitions.map((t) => t.from).filter((s): s is S => s !== null));
  return {
    name,
    transitions,
    terminal: new Set(states.filter((s) => !withExit.has(s))),
    can: (from, event) => table.has(`${from ?? ""}|${event}`),
    next(from, event) {
      const to = table.get(`${from ?? ""}|${event}`);
      if (!to) {
        throw new AppError("conflict", `A ${name} in status ${from ?? "(new)"} cannot ${event}`, {
          reason: "illegal_transition",
          extensions: { from, event },
        });
      }
      return to;
    },
  };
}
