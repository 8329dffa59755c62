import { describe, expect, it } from "vitest";
import type { TDescriptor } from "@/server/domain/source/source.types";
import { proposeFix, RULE_SYMPTOMS, type TFixInput } from "./fix-rules";

const finding = (code: string, message = "m") => ({ id: null, check: null, code, message });
const descriptor = (healthPath: string) =>
  ({ build_plan: { health: { path: healthPath, timeout_ms: 1000 } } }) as unknown as TDescriptor;
const input = (over: Partial<TFixInput>): TFixInput => ({
  finding: finding("no_start_command"),
  descriptor: null,
  contractRejection: null,
  files: new Map(),
  ...over,
});

describe("missing_start_script", () => {
  it("adds a start script for the main file, in the file's own indentation", () => {
    const pkg = '{\n  "name": "a",\n  "main": "lib/app.js"\n}\n';
    const p = proposeFix(
      input({
        files: new Map([
          ["package.json", pkg],
          ["lib/app.js", ""],
          ["server.js", ""],
        ]),
      }),
    );
    expect(p).toMatchObject({ rule: "missing_start_script", kind: "source_patch" });
    if (p?.kind !== "source_patch") throw new Error("no patch");
    expect(JSON.parse(p.files[0]!.after)).toEqual({
      name: "a",
      main: "lib/app.js",
      scripts: { start: "node lib/app.js" },
    });
    expect(p.files[0]!.after).toContain('\n  "scripts": {\n    "start": "node lib/app.js"\n  }\n}\n');
    expect(p.diff).toContain('-  "main": "lib/app.js"');
  });

  it("does nothing when a start script exists, no entry file exists, or the finding is not about starting", () => {
    expect(
      proposeFix(
        input({
          files: new Map([
            ["package.json", '{"scripts":{"start":"x"}}'],
            ["server.js", ""],
          ]),
        }),
      ),
    ).toBeNull();
    expect(proposeFix(input({ files: new Map([["package.json", "{}"]]) }))).toBeNull();
    expect(
      proposeFix(
        input({
          finding: finding("smoke_server_error"),
          files: new Map([
            ["package.json", "{}"],
            ["server.js", ""],
          ]),
        }),
      ),
    ).toBeNull();
  });
});

describe("health_path_not_found", () => {
  it("proposes checking / when the health path answers 404", () => {
    expect(
      proposeFix(input({ finding: finding("health_path_not_found"), descriptor: descriptor("/healthz") })),
    ).toMatchObject({
      rule: "health_path_not_found",
      kind: "descriptor_edit",
      edits: { build_plan: { health: { path: "/" } } },
    });
    expect(
      proposeFix(
        input({
          finding: finding("health_check_failed", "GET /healthz answered 404"),
          descriptor: descriptor("/healthz"),
        }),
      )?.rule,
    ).toBe("health_path_not_found");
    expect(
      proposeFix(
        input({
          finding: finding("health_check_failed", "GET /healthz answered 503"),
          descriptor: descriptor("/healthz"),
        }),
      ),
    ).toBeNull();
    expect(proposeFix(input({ finding: finding("health_path_not_found"), descriptor: descriptor("/") }))).toBeNull();
  });
});

describe("wrong_port", () => {
  const plan = { build_plan: { port: 3000, health: { path: "/", timeout_ms: 1000 } } } as unknown as TDescriptor;
  const files = (server: string) =>
    new Map([
      ["package.json", '{"scripts":{"start":"node ./srv/main.js"}}'],
      ["srv/main.js", server],
    ]);
  it("proposes the port the start script's file listens on", () => {
    expect(
      proposeFix(
        input({
          finding: finding("health_check_failed"),
          descriptor: plan,
          files: files("http.createServer(h).listen(8080, () => {});"),
        }),
      ),
    ).toMatchObject({
      rule: "wrong_port",
      kind: "descriptor_edit",
      edits: { ports: [{ port: 8080, protocol: "http" }] },
    });
  });
  it("does nothing when the app reads PORT, listens on the plan's port, or the finding is not about health", () => {
    expect(
      proposeFix(
        input({
          finding: finding("health_check_failed"),
          descriptor: plan,
          files: files("s.listen(Number(process.env.PORT) || 8080)"),
        }),
      ),
    ).toBeNull();
    expect(
      proposeFix(input({ finding: finding("health_check_failed"), descriptor: plan, files: files("s.listen(3000)") })),
    ).toBeNull();
    expect(
      proposeFix(input({ finding: finding("smoke_server_error"), descriptor: plan, files: files("s.listen(8080)") })),
    ).toBeNull();
  });
});

describe("capabilities_schema", () => {
  it("drops unknown actions and unknown capabilities", () => {
    const doc = JSON.stringify({
      capabilities: [
        { id: "data.kv", actions: ["get", "fly"] },
        { id: "time.travel", actions: ["go"] },
      ],
    });
    const p = proposeFix(
      input({
        finding: finding("contract_rejected"),
        contractRejection: { reason: "unknown_action" },
        files: new Map([["capabilities.json", doc]]),
      }),
    );
    if (p?.kind !== "source_patch") throw new Error("no patch");
    expect(JSON.parse(p.files[0]!.after)).toEqual({ capabilities: [{ id: "data.kv", actions: ["get"] }] });
    expect(p.summary).toContain('action "fly" of data.kv');
    expect(p.summary).toContain('capability "time.travel"');
    expect(
      proposeFix(
        input({
          finding: finding("contract_rejected"),
          contractRejection: { reason: "scope_invalid" },
          files: new Map([["capabilities.json", doc]]),
        }),
      ),
    ).toBeNull();
  });
});

describe("every rule applies from each finding that carries its symptom", () => {
  const plan = { build_plan: { port: 3000, health: { path: "/healthz", timeout_ms: 1000 } } } as unknown as TDescriptor;
  /** For each rule, frozen files (and a message) where its cause, and only its cause, is present. */
  const evidence: Record<keyof typeof RULE_SYMPTOMS, (code: string) => TFixInput> = {
    missing_start_script: (code) =>
      input({
        finding: finding(code),
        descriptor: plan,
        files: new Map([
          ["package.json", '{"name":"a"}'],
          ["server.js", "s.listen(process.env.PORT)"],
        ]),
      }),
    wrong_port: (code) =>
      input({
        finding: finding(code),
        descriptor: plan,
        files: new Map([
          ["package.json", '{"scripts":{"start":"node srv/main.js"}}'],
          ["srv/main.js", "s.listen(8080)"],
        ]),
      }),
    health_path_not_found: (code) =>
      input({
        finding: finding(code, "/healthz did not answer 2xx/3xx within 1000 ms (3 attempts; the last answered 404)"),
        descriptor: plan,
        files: new Map([
          ["package.json", '{"scripts":{"start":"node server.js"}}'],
          ["server.js", "s.listen(process.env.PORT)"],
        ]),
      }),
    capabilities_schema: (code) =>
      input({
        finding: finding(code),
        contractRejection: { reason: "unknown_action" },
        files: new Map([
          ["capabilities.json", JSON.stringify({ capabilities: [{ id: "data.kv", actions: ["fly"] }] })],
        ]),
      }),
  };
  const cases = (Object.entries(RULE_SYMPTOMS) as Array<[keyof typeof RULE_SYMPTOMS, readonly string[]]>).flatMap(
    ([rule, codes]) => codes.map((code) => [rule, code] as const),
  );
  it.each(cases)("%s from %s", (rule, code) => {
    expect(proposeFix(evidence[rule](code))?.rule).toBe(rule);
  });

  it("start_exited (the app exited before its health check answered) gets the missing start script", () => {
    expect(RULE_SYMPTOMS.missing_start_script).toContain("start_exited");
  });

  it("a finding without the symptom gets no rule even when the cause is in the files", () => {
    for (const rule of Object.keys(evidence) as Array<keyof typeof RULE_SYMPTOMS>) {
      expect(proposeFix(evidence[rule]("smoke_server_error")), rule).toBeNull();
    }
  });
});
