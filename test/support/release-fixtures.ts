import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { processPlannedDeployments } from "@/server/domain/deployments/apply.service";
import { processEvaluations } from "@/server/domain/releases/evaluation-worker";
import { processPendingFreezes } from "@/server/domain/source/freeze.service";
import { api, type TTestUser } from "./api";
import { makeAppRepo, must, type TAppRepo } from "./deploy-fixtures";

/**
 * Evaluation and release fixtures: an evaluation driven to its verdict by
 * running the evaluation and deploy workers in turn (polling with a
 * deadline, never sleeping a fixed time), and a product whose repository
 * the test can change and freeze again (a second revision of one product).
 */
export async function evaluate(u: TTestUser, ws: string, rev: string, body: Record<string, unknown> = {}, ms = 90_000) {
  const queued = must(
    await api("POST", `/v1/workspaces/${ws}/revisions/${rev}/evaluations`, { token: u.token, body }),
    202,
    "evaluate",
  );
  return finishEvaluation(u, ws, queued.id, ms);
}

export async function finishEvaluation(u: TTestUser, ws: string, id: string, ms = 90_000) {
  const until = Date.now() + ms;
  for (;;) {
    await processEvaluations(10);
    await processPlannedDeployments(5);
    const e = must(await api("GET", `/v1/workspaces/${ws}/evaluations/${id}`, { token: u.token }), 200, "evaluation");
    if (e.status === "passed" || e.status === "failed") return e;
    if (Date.now() > until) throw new Error(`evaluation ${id} still ${e.status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd });
}

/** A product whose repository can be changed: `refreeze(files)` commits the files and freezes a new revision. */
export async function changeableApp(u: TTestUser, ws: string, repo: TAppRepo = {}) {
  const url = makeAppRepo(repo);
  const dir = url.slice("file://".length);
  const accepted = must(
    await api("POST", `/v1/workspaces/${ws}/products`, {
      token: u.token,
      body: { repo_url: url, ref: "main", auth: { kind: "none" } },
    }),
    202,
    "intake",
  );
  const productId: string = accepted.product_id;
  const waitFrozen = async (frz: string) => {
    let freeze: { status: string; revision?: { id: string } } = { status: "pending" };
    for (let i = 0; i < 50 && freeze.status === "pending"; i++) {
      await processPendingFreezes(10);
      freeze = must(await api("GET", `/v1/workspaces/${ws}/source-freezes/${frz}`, { token: u.token }), 200, "freeze");
    }
    if (freeze.status !== "frozen" || !freeze.revision) throw new Error(`freeze failed: ${JSON.stringify(freeze)}`);
    return freeze.revision.id;
  };
  const first = await waitFrozen(accepted.source_freeze_id);
  return {
    productId,
    revisionId: first,
    async refreeze(files: Record<string, string>): Promise<string> {
      for (const [rel, content] of Object.entries(files)) writeFileSync(path.join(dir, rel), content);
      git(dir, "add", "-A");
      git(dir, "commit", "-q", "-m", "change");
      const r = must(
        await api("POST", `/v1/workspaces/${ws}/products/${productId}/source-freezes`, {
          token: u.token,
          body: { ref: "main" },
        }),
        202,
        "refreeze",
      );
      return waitFrozen(r.source_freeze_id);
    },
  };
}
