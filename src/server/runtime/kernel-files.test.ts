import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../../test/support/procs";
import { closeKernelFilesUnder, openKernelFiles, readKernelFile } from "./kernel-files";

const cpuTicks = (stat: string) => {
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(rest[11]) + Number(rest[12]);
};

describe("readKernelFile", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) {
      closeKernelFilesUnder(d);
      rmSync(d, { recursive: true, force: true });
    }
  });

  it("answers afresh on every read through the descriptor it keeps", async () => {
    // A child that burns CPU: its utime must move between two reads through the same open descriptor.
    const child = spawn(process.execPath, ["-e", "let x=0;for(;;){x++}"], { stdio: "ignore" });
    try {
      const file = `/proc/${child.pid}/stat`;
      const first = readKernelFile(file);
      expect(first).toMatch(new RegExp(`^${child.pid} \\(`));
      const kept = openKernelFiles();
      // Its CPU time must move when read again through the same descriptor (not a new one).
      await until("the child's CPU time to move", () => cpuTicks(readKernelFile(file)!) > cpuTicks(first!), 10_000, 10);
      expect(openKernelFiles()).toBe(kept);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("answers null once the process is gone, and lets its descriptor go", async () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const file = `/proc/${child.pid}/stat`;
    expect(readKernelFile(file)).not.toBeNull();
    const kept = openKernelFiles();
    await new Promise((r) => {
      child.on("exit", r);
      child.kill("SIGKILL");
    });
    // The exit event comes once the child is reaped: the descriptor now answers ESRCH.
    expect(readKernelFile(file)).toBeNull();
    expect(openKernelFiles()).toBe(kept - 1);
  });

  it("answers null for a file that is not there, keeping nothing open", () => {
    const before = openKernelFiles();
    expect(readKernelFile("/proc/0/stat")).toBeNull();
    expect(readKernelFile(path.join(os.tmpdir(), "capstan-no-such-file"))).toBeNull();
    expect(openKernelFiles()).toBe(before);
  });

  it("reads a file made anew under the same name once its old descriptor fails, and closes what a directory kept", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "capstan-kf-"));
    dirs.push(dir);
    const file = path.join(dir, "memory.events");
    writeFileSync(file, "oom_kill 0\n");
    expect(readKernelFile(file)).toBe("oom_kill 0\n");
    // A regular file keeps answering through its descriptor; replacing it leaves the old inode behind, so the
    // reader sees the old text until the directory's descriptors are closed (what removing a cgroup does).
    rmSync(file);
    writeFileSync(file, "oom_kill 3\n");
    expect(readKernelFile(file)).toBe("oom_kill 0\n");
    const before = openKernelFiles();
    closeKernelFilesUnder(dir);
    expect(openKernelFiles()).toBe(before - 1);
    expect(readKernelFile(file)).toBe("oom_kill 3\n");
  });

  it("keeps at most 256 descriptors open, closing the oldest first", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "capstan-kf-"));
    dirs.push(dir);
    for (let i = 0; i < 300; i++) {
      writeFileSync(path.join(dir, `f${i}`), String(i));
      expect(readKernelFile(path.join(dir, `f${i}`))).toBe(String(i));
    }
    expect(openKernelFiles()).toBeLessThanOrEqual(256);
    expect(readKernelFile(path.join(dir, "f0"))).toBe("0"); // evicted, opened again
  });
});
