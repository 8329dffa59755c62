import { z } from "zod";

/**
 * Runner hosts as operators see them (GET /v1/platform/runner-hosts; ws_platform
 * owners and admins). `id` is a URL-safe handle (`rh_` + a hash of the host's
 * name, which is `hostname:runner dir` and so not path-safe); `name` is the
 * name deployments record. docs/decisions.md "Operations".
 */
export const ZRunnerHost = z
  .object({
    id: z.string().regex(/^rh_[0-9a-f]{20}$/),
    name: z.string().describe("The host's registered name (hostname:runner directory); deployments' runner_host"),
    endpoint: z.string().describe("Its gateway, reached by every web replica"),
    capacity: z.number().int().describe("Most deployments it places (CAPSTAN_RUNNER_CAPACITY)"),
    load: z.number().int().describe("Deployments applying or active on it"),
    state: z
      .enum(["live", "cordoned", "draining", "drained", "lost"])
      .describe(
        "live: takes new deployments; cordoned: keeps its apps, takes none; draining: cordoned, its deployments being replaced elsewhere one by one; drained: none left; lost: its lease lapsed (its apps are placed again elsewhere)",
      ),
    sandbox: z
      .string()
      .nullable()
      .describe("The sandbox its apps run in (gvisor, bubblewrap, none); null before it reported one"),
    last_heartbeat_at: z.string(),
    lease_expires_at: z.string(),
    cordoned_at: z.string().nullable(),
    started_at: z.string(),
    draining_at: z.string().nullable().describe("When a drain started (null: not draining)"),
    drained_at: z.string().nullable().describe("When the drain finished (no deployment left)"),
    drain: z
      .object({
        remaining: z.number().int().describe("Deployments still on the host"),
        message: z
          .string()
          .describe(
            "Where the drain stands, in words (which deployment is being replaced, which one is stuck and why)",
          ),
      })
      .nullable()
      .describe("A drain under way; null otherwise"),
  })
  .meta({ id: "RunnerHost" });
export type TRunnerHost = z.infer<typeof ZRunnerHost>;

export const ZRunnerHostList = z
  .object({ items: z.array(ZRunnerHost).describe("Every registered host, by name") })
  .meta({ id: "RunnerHosts" });

export const ZRunnerHostPath = z.object({ host: z.string().regex(/^rh_[0-9a-f]{20}$/, "a runner host id (rh_…)") });
