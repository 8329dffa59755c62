import { describe, expect, it } from "vitest";
import { authorize } from "@/server/domain/deployments/deployments.service";
import type { TIsolationReport } from "@/server/runtime";

/**
 * Issue #38 for the shipped image (Capstan as uid 10001, not root): an app then runs as Capstan's own uid, and the
 * deployment says so in words (a warning finding), in every mode; as root (a uid of its own) nothing is added.
 */
const report = (over: Partial<TIsolationReport>): TIsolationReport =>
  ({
    profile: "isolated-vm",
    enforced: true,
    runner: "local",
    mechanism: "gvisor",
    sandbox: "gvisor",
    sandbox_unavailable_reason: null,
    build_sandbox: "bubblewrap",
    kernel_boundary: true,
    vm_boundary: false,
    filesystem: true,
    network: true,
    identity: { uid: 10001, gid: 10001, dedicated: false, host_root: false, capabilities: "none" },
    resource_limits: false,
    limits: {},
    ...over,
  }) as TIsolationReport;
const rev = { descriptor: { build_plan: { start: { command: "node server.js" } } } } as never;

describe("a runner whose Capstan is not root", () => {
  it("warns that the app shares Capstan's uid, without blocking an enforced production deployment", () => {
    const a = authorize(rev, "production", report({}), false);
    expect(a.blocked).toBeNull();
    const f = a.findings.find((x) => x.code === "identity_shared");
    expect(f).toMatchObject({ kind: "isolation", severity: "warning" });
    expect(f!.message).toMatch(/runs as Capstan's own uid 10001, not a uid of its own/);
    expect(f!.message).toMatch(/no per-uid process limit and no disk cap/);
    expect(f!.message).not.toMatch(/no sandbox/);
  });

  it("says plainly that without a sandbox the app can read Capstan's files and environment", () => {
    const a = authorize(
      rev,
      "preview",
      report({ enforced: false, kernel_boundary: false, sandbox: "none", mechanism: "none", filesystem: false }),
      false,
    );
    expect(a.findings.find((x) => x.code === "identity_shared")!.message).toMatch(
      /there is no sandbox: it can read Capstan's files and environment/,
    );
    expect(a.findings.map((x) => x.code)).toEqual(
      expect.arrayContaining(["identity_shared", "isolation_unenforced", "sandbox_unavailable"]),
    );
  });

  it("adds nothing when the app has a uid of its own (Capstan as root)", () => {
    const own = { uid: 201234, gid: 201234, dedicated: true, host_root: false, capabilities: "none" as const };
    expect(authorize(rev, "production", report({ identity: own }), false).findings).toEqual([]);
  });
});
