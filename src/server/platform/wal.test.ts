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
  it("has written a record when append returns (before its sync), so a process killed then still leaves it", async () => {
    const dir = tmp();
    const wal = new LocalWal(dir, "ins_a");
    const a = wal.append({ i: "cap_1", u: 5 });
    // No await yet: the line is in the file (the kernel's page cache) already; only its fdatasync is pending.
    expect(readFileSync(path.join(dir, "ins_a.0.jsonl"), "utf8")).toBe('{"i":"cap_1","u":5}\n');
    expect(LocalWal.read(dir, "ins_a")).toEqual([{ i: "cap_1", u: 5 }]);
    await a.durable;
    expect(a.segment).toBe(0);
    await wal.close();
  });

  it("group-commits the syncs of appends made while one is in flight, and every durable promise resolves", async () => {
    const dir = tmp();
    const wal = new LocalWal(dir, "ins_b");
    const appended = Array.from({ length: 50 }, (_, n) => wal.append({ i: `cap_${n}` }));
    await Promise.all(appended.map((a) => a.durable));
    expect(LocalWal.read(dir, "ins_b").map((r) => r.i)).toEqual(appended.map((_, n) => `cap_${n}`));
    expect(wal.pending()).toBe(50);
    for (const a of appended) wal.release(a.segment);
    expect(wal.pending()).toBe(0);
    await wal.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("keeps a closed journal with records outstanding (recovery reads it), and refuses appends after close", async () => {
    const dir = tmp();
    const wal = new LocalWal(dir, "ins_c");
    await wal.append({ i: "cap_open" }).durable;
    await wal.close();
    expect(() => wal.append({ i: "cap_late" })).toThrow(/closed/);
    expect(LocalWal.names(dir)).toEqual(["ins_c"]);
    expect(LocalWal.read(dir, "ins_c")).toEqual([{ i: "cap_open" }]);
  });
});
