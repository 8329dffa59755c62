import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ownProcessGroup, signalGroup } from "../src/server/runtime/process-table";
import { reapUnder } from "./support/reap";

/**
 * A runsc call Capstan makes without `detached` (a probe, `runsc list`) sits in
 * the caller's own process group, which under CI is the whole test run: no
 * group signal may ever reach it (a CI run once died with exit 137 that way).
 */
describe("process-group guard", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "capstan-pgguard-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("knows its own group and refuses to signal it (or init's)", () => {
    const stat = spawnSync("cat", ["/proc/self/stat"], { encoding: "utf8" }).stdout;
    // `cat` inherits our group.
    expect(ownProcessGroup()).toBe(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]));
    expect(signalGroup(ownProcessGroup(), 0)).toBe(false);
    expect(signalGroup(1, 0)).toBe(false);
    expect(signalGroup(0, 0)).toBe(false);
  });

  it("reaps a child in our own group by pid alone, and a detached one by its group", async () => {
    // Named like a runsc call under `dir`: the shape reapUnder looks for.
    const marker = `runsc --root ${dir}/state list`;
    const inOurGroup = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", marker], { stdio: "ignore" });
    const detached = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", marker], {
      stdio: "ignore",
      detached: true,
    });
    const exited = (c: typeof inOurGroup) => new Promise((r) => c.once("exit", (_code, sig) => r(sig)));
    const a = exited(inOurGroup);
    const b = exited(detached);
    // Reap once both carry the marker (exec done), polled with a deadline rather than a fixed wait.
    const named = (pid?: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`${dir}/state`);
      } catch {
        return false;
      }
    };
    for (const deadline = Date.now() + 10_000; !(named(inOurGroup.pid) && named(detached.pid));) {
      if (Date.now() > deadline) throw new Error("the children never started");
      await new Promise((r) => setTimeout(r, 10));
    }
    reapUnder(dir);
    expect(await a).toBe("SIGKILL");
    expect(await b).toBe("SIGKILL");
    // and we are still here to say so
    expect(process.kill(process.pid, 0)).toBe(true);
  });
});
