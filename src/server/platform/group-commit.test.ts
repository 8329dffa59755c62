import { describe, expect, it } from "vitest";
import { GroupCommit } from "./group-commit";

describe("GroupCommit", () => {
  it("flushes a lone item at once and batches the ones that arrive while a flush is in flight", async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const gc = new GroupCommit<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((r) => (release = r));
      return items.map((i) => i * 10);
    });
    const first = gc.add(1);
    expect(batches).toEqual([[1]]); // no timer: the first item went at once
    const rest = [gc.add(2), gc.add(3), gc.add(4)];
    release();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it("answers no caller before the flush of its own batch has resolved (the commit), whatever else completes", async () => {
    const releases: Array<() => void> = [];
    const flushed: number[][] = [];
    const gc = new GroupCommit<number, number>(async (items) => {
      await new Promise<void>((r) => releases.push(r));
      flushed.push(items);
      return items;
    });
    const answered: number[] = [];
    const track = (i: number) => gc.add(i).then((v) => answered.push(v));
    const first = track(1);
    const rest = [track(2), track(3)];
    const settle = () => new Promise((r) => setImmediate(r));
    await settle();
    expect(answered).toEqual([]); // the first flush is in flight: nobody is answered
    releases[0]!();
    await first;
    expect(answered).toEqual([1]);
    await settle();
    // The second batch is in flight now: its callers wait for it although the first one committed.
    expect(flushed).toEqual([[1]]);
    expect(answered).toEqual([1]);
    releases[1]!();
    await Promise.all(rest);
    expect(flushed).toEqual([[1], [2, 3]]);
    expect(answered).toEqual([1, 2, 3]);
  });

  it("caps a batch at max items", async () => {
    const sizes: number[] = [];
    let release: () => void = () => undefined;
    const gc = new GroupCommit<number, number>(async (items) => {
      sizes.push(items.length);
      if (sizes.length === 1) await new Promise<void>((r) => (release = r));
      return items;
    }, 2);
    const all = [0, 1, 2, 3, 4].map((i) => gc.add(i));
    release();
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3, 4]);
    expect(sizes).toEqual([1, 2, 2]);
  });

  it("retries a failed batch item by item, so only the bad item fails", async () => {
    let release: () => void = () => undefined;
    let calls = 0;
    const gc = new GroupCommit<number, number>(async (items) => {
      calls++;
      if (calls === 1) await new Promise<void>((r) => (release = r));
      if (items.includes(3)) throw new Error("bad item 3");
      return items;
    });
    const first = gc.add(0);
    const rest = [1, 2, 3].map((i) =>
      gc.add(i).then(
        (v) => ({ ok: v }),
        (e: Error) => ({ err: e.message }),
      ),
    );
    release();
    await first;
    expect(await Promise.all(rest)).toEqual([{ ok: 1 }, { ok: 2 }, { err: "bad item 3" }]);
  });

  it("idle() resolves only once everything queued and in flight is written", async () => {
    let release: () => void = () => undefined;
    const written: number[] = [];
    const gc = new GroupCommit<number, void>(async (items) => {
      if (!written.length) await new Promise<void>((r) => (release = r));
      written.push(...items);
      return items.map(() => undefined);
    });
    await gc.idle(); // nothing queued: at once
    const adds = [gc.add(1), gc.add(2), gc.add(3)];
    let idle = false;
    const waiting = gc.idle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    release();
    await waiting;
    expect(written).toEqual([1, 2, 3]);
    await Promise.all(adds);
  });
});
