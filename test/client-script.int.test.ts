import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CapstanError, createCapstanClient, must } from "@capstan/client";
import { api, BASE_URL, bootApp, makeUser } from "./support/api";
import { inProcessFetch } from "./support/handlers";

/**
 * The "Calling Capstan from a script" example of docs/api.md is examples/script.ts
 * verbatim, and it runs: through the generated client, in-process, every
 * response checked against /v1/openapi.json.
 */
const root = path.resolve(import.meta.dirname, "..");

beforeAll(bootApp);
afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("the generated client", () => {
  it("the docs/api.md example is examples/script.ts", () => {
    const readme = readFileSync(path.join(root, "docs/api.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Calling Capstan from a script"));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    const script = readFileSync(path.join(root, "examples/script.ts"), "utf8").split("\n").slice(1).join("\n");
    expect(block).toBe(script);
    expect(script.split("\n").filter((l) => l.trim()).length).toBeLessThanOrEqual(10);
  });

  it("runs the docs/api.md example: creates a workspace, reads its plan, lists the caller's workspaces", async () => {
    const user = await makeUser();
    vi.stubEnv("CAPSTAN_URL", BASE_URL);
    vi.stubEnv("CAPSTAN_TOKEN", user.token);
    vi.stubGlobal("fetch", inProcessFetch);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    await import("../examples/script");
    const lines = log.mock.calls.map((c) => c.join(" "));
    const id = /^created (ws_[0-9a-z]{26}) on the free plan$/.exec(lines[0] ?? "")?.[1];
    expect(id, lines.join("\n")).toBeDefined();
    expect(lines.slice(1)).toEqual([`${id} nightly reports owner`]);
    const read = await api("GET", `/v1/workspaces/${id}`, { token: user.token });
    expect(read.json).toMatchObject({ id, name: "nightly reports", role: "owner" });
  });

  it("answers a problem as a CapstanError with its status and problem document", async () => {
    const capstan = createCapstanClient({ baseUrl: BASE_URL, token: "not-a-token", fetch: inProcessFetch });
    const err = await must(capstan.GET("/v1/workspaces", {})).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CapstanError);
    expect(err).toMatchObject({ status: 401, body: { code: "unauthenticated", status: 401 } });
  });

  it("types requests from the document: an undocumented body does not compile", async () => {
    const user = await makeUser();
    const capstan = createCapstanClient({ baseUrl: BASE_URL, token: user.token, fetch: inProcessFetch });
    // @ts-expect-error `title` is not a property of the workspace create body (name is required)
    const { error, response } = await capstan.POST("/v1/workspaces", { body: { title: "x" } });
    expect(response.status).toBe(422);
    expect(error).toMatchObject({ code: "validation_failed" });
  });
});
