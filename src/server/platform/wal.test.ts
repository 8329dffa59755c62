import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LocalWal } from "./wal";

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), "capstan-wal-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("LocalWal", () => {
  it("has written a record when append returns (before any sync), so a process killed then still leaves it", async () => {
    const dir = tmp();
    const wal = new LocalWal(dir, "ins_a");
    const a = wal.append({ i: "cap_1", u: 5 });
    // No await yet: the line is in the file (the kernel's page cache) already; only its fdatasync is pending.
    expect(readFileSync(path.join(dir, "ins_a.0.jsonl"), "utf8")).toBe('{"i":"cap_1","u":5}\n');
    expect(LocalWal.read(dir, "ins_a")).toEqual([{ i: "cap_1", u: 5 }]);
    expect(a.segment).toBe(0);
    await wal.sync();
    expect(wal.syncsDone()).toBe(1);
    await wal.close();
  });

  it("syncs a line still outstanding after the delay, once for all the lines written meanwhile", async () => {
    const dir = tmp();
    const wal = new LocalWal(dir, "ins_b", 20);
    const appended = Array.from({ length: 50 }, (_, n) => wal.append({ i: `cap_${n}` }));
    expect(wal.syncsDone()).toBe(0);
    const deadline = Date.now() + 5_000;
    while (wal.syncsDone() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(wal.syncsDone()).toBe(1);
    expect(LocalWal.read(dir, "ins_b").map((r) => r.i)).toEqual(appended.map((_, n) => `cap_${n}`));
    expect(wal.pending()).toBe(50);
    for (const a of appended) wal.release(a);
    expect(wal.pending()).toBe(0);
    await wal.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("costs no sync for lines released before the delay (their calls were recorded first)", async () => {
    const dir = tmp();
    const wal = new LocalWal(dir, "ins_d", 20);
    for (let n = 0; n < 10; n++) wal.release(wal.append({ i: `cap_${n}` }));
    await new Promise((r) => setTimeout(r, 80));
    expect(wal.syncsDone()).toBe(0);
    // One left outstanding is synced after the delay.
    wal.append({ i: "cap_slow" });
    const deadline = Date.now() + 5_000;
    while (wal.syncsDone() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(wal.syncsDone()).toBe(1);
    await wal.close();
    expect(LocalWal.read(dir, "ins_d").map((r) => r.i)).toContain("cap_slow");
  });

  it("counts a line released into another journal as nothing: the next outstanding line is still synced", async () => {
    const dir = tmp();
    const older = new LocalWal(dir, "ins_e1", 60_000);
    const foreign = older.append({ i: "cap_old" });
    const wal = new LocalWal(dir, "ins_e2", 20);
    wal.release(foreign);
    wal.append({ i: "cap_new" });
    const deadline = Date.now() + 5_000;
    while (wal.syncsDone() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(wal.syncsDone()).toBe(1);
    await wal.close();
    await older.close();
  });

  it("keeps a closed journal with records outstanding (recovery reads it, synced), and refuses appends after close", async () => {
    const dir = tmp();
    const wal = new LocalWal(dir, "ins_c", 60_000);
    wal.append({ i: "cap_open" });
    await wal.close();
    expect(wal.syncsDone()).toBe(1);
    expect(() => wal.append({ i: "cap_late" })).toThrow(/closed/);
    expect(LocalWal.names(dir)).toEqual(["ins_c"]);
    expect(LocalWal.read(dir, "ins_c")).toEqual([{ i: "cap_open" }]);
  });
});
