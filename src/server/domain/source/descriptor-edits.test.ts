import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { canonicalJson } from "@/server/platform/canonical-json";
import { sha256Hex } from "@/server/platform/crypto";
import { findCredential } from "./credential-scan";
import { applyDescriptorEdits, descriptorHash, ZDescriptor, ZDescriptorConfirmationRequest } from "./descriptor-edits";
import { SourceRejection, type TDescriptor } from "./source.types";

/** What detection gives for an npm app with start and build scripts. */
const base = (): TDescriptor => ({
  runtime: { kind: "node", version: null },
  entrypoint: { command: "npm", args: ["run", "start"] },
  ports: [{ port: 3000, protocol: "http" }],
  field_sources: Object.fromEntries(
    [
      "runtime",
      "entrypoint",
      "ports",
      ...["runtime", "workdir", "install", "build", "start", "port", "health", "env"].map((k) => `build_plan.${k}`),
    ].map((k) => [k, "detected" as const]),
  ),
  build_plan: {
    runtime: { kind: "node", version: null },
    workdir: "/",
    install: { package_manager: "npm", command: "npm ci" },
    build: { command: "npm run build" },
    start: { command: "npm run start" },
    port: 3000,
    health: { path: "/", timeout_ms: 5000 },
    env: ["PORT", "NODE_ENV"],
  },
});

describe("findCredential", () => {
  it.each([
    ["sk-" + "A".repeat(20)],
    ["sk-proj-" + "a_b-C".repeat(8)],
    ["ghp_" + "a".repeat(36)],
    ["github_pat_" + "A1_".repeat(10)],
    ["AKIAIOSFODNN7EXAMPLE"],
    ["xoxb-123456789012-abc"],
    ["-----BEGIN OPENSSH PRIVATE KEY-----"],
    ["-----BEGIN PRIVATE KEY-----"],
    ["api_key=abcdefgh"],
    ["API-KEY = abcdefgh12"],
    ["apikey=abcdefgh"],
    ["SECRET=abcdefgh"],
    ["NEXTAUTH_SECRET=abcdefgh"],
    ["--token=abcdefgh"],
    ["Password= 'hunter2hunter2'"],
    ["git clone https://user:pa55word@github.com/x/y"],
    ["git+https://x-access-token:abc@github.com/x"],
  ])("finds %s", (text) => {
    const kind = findCredential(`prefix ${text} suffix`);
    expect(kind).not.toBeNull();
    expect(kind).not.toContain(text);
  });

  it.each([
    ["npm ci"],
    ["next start -p 3000"],
    ["sk-short"],
    ["task-runner-with-a-very-long-name-here"],
    ["ghp_tooshort"],
    ["token=short"],
    ["TOKEN=$GITHUB_TOKEN_VALUE"],
    ['API_KEY="${API_KEY}"'],
    ["password=$DB_PASSWORD_FROM_ENV"],
    ["https://x:${TOKEN}@github.com"],
    ["http://localhost:3000/@scope/pkg"],
    ["https://example.com/a@b"],
    ["PORT=3000 NODE_ENV=production"],
    ["-----BEGIN PUBLIC KEY-----"],
  ])("does not flag %s", (text) => {
    expect(findCredential(text)).toBeNull();
  });
});

describe("applyDescriptorEdits", () => {
  const developer = (d: TDescriptor) =>
    Object.keys(d.field_sources)
      .filter((k) => d.field_sources[k] === "developer")
      .sort();

  it("returns an equal descriptor without edits and never mutates its input", async () => {
    const d = base();
    const snapshot = structuredClone(d);
    expect(applyDescriptorEdits(d, {})).toEqual(d);
    expect(applyDescriptorEdits(d, { build_plan: {} })).toEqual(d);
    applyDescriptorEdits(d, { runtime: { kind: "node", version: "22" }, ports: [{ port: 8080, protocol: "http" }] });
    expect(d).toEqual(snapshot);
  });

  it("edits install and infers the package manager from the command", async () => {
    const d = base();
    const a = applyDescriptorEdits(d, { build_plan: { install: { command: "pnpm install" } } });
    expect(a.build_plan!.install).toEqual({ package_manager: "pnpm", command: "pnpm install" });
    expect(developer(a)).toEqual(["build_plan.install"]);
    expect(applyDescriptorEdits(d, { build_plan: { install: { command: null } } }).build_plan!.install).toEqual({
      package_manager: null,
      command: null,
    });
    expect(
      applyDescriptorEdits(d, { build_plan: { install: { command: "make deps" } } }).build_plan!.install
        .package_manager,
    ).toBeNull();
  });

  it("edits build and health (keeping the timeout)", async () => {
    const a = applyDescriptorEdits(base(), { build_plan: { build: { command: null }, health: { path: "/healthz" } } });
    expect(a.build_plan!.build).toEqual({ command: null });
    expect(a.build_plan!.health).toEqual({ path: "/healthz", timeout_ms: 5000 });
    expect(developer(a)).toEqual(["build_plan.build", "build_plan.health"]);
  });

  it("keeps the entrypoint in step with an edited start command, and the other way round", async () => {
    const d = base();
    const a = applyDescriptorEdits(d, { build_plan: { start: { command: "node dist/main.js --cluster" } } });
    expect(a.entrypoint).toEqual({ command: "sh", args: ["-c", "node dist/main.js --cluster"] });
    expect(a.build_plan!.start.command).toBe("node dist/main.js --cluster");
    expect(developer(a)).toEqual(["build_plan.start", "entrypoint"]);
    const b = applyDescriptorEdits(d, { entrypoint: { command: "node", args: ["dist/main.js", "--name", "my app"] } });
    expect(b.build_plan!.start.command).toBe("node dist/main.js --name 'my app'");
    expect(developer(b)).toEqual(["build_plan.start", "entrypoint"]);
    const c = applyDescriptorEdits(d, {
      entrypoint: { command: "node", args: ["a.js"] },
      build_plan: { start: { command: "npm start" } },
    });
    expect(c.entrypoint).toEqual({ command: "node", args: ["a.js"] });
    expect(c.build_plan!.start.command).toBe("npm start");
  });

  it("mirrors runtime and ports into the build plan", async () => {
    const a = applyDescriptorEdits(base(), {
      runtime: { kind: "node", version: "22.3.0" },
      ports: [
        { port: 8080, protocol: "http" },
        { port: 9090, protocol: "http" },
      ],
    });
    expect(a.runtime).toEqual({ kind: "node", version: "22.3.0" });
    expect(a.build_plan!.runtime).toEqual({ kind: "node", version: "22.3.0" });
    expect(a.ports).toHaveLength(2);
    expect(a.build_plan!.port).toBe(8080);
    expect(developer(a)).toEqual(["build_plan.port", "build_plan.runtime", "ports", "runtime"]);
    const empty = applyDescriptorEdits(base(), { ports: [] });
    expect(empty.ports).toEqual([]);
    expect(empty.build_plan!.port).toBe(3000);
    expect(developer(empty)).toEqual(["ports"]);
  });

  it("synthesises a build plan for a descriptor stored without one", async () => {
    const { build_plan: _bp, ...d } = base();
    const a = applyDescriptorEdits(d, { build_plan: { health: { path: "/up" } } });
    expect(ZDescriptor.safeParse(a).success).toBe(true);
    expect(a.build_plan!.start.command).toBe("npm run start");
    expect(a.build_plan!.health.path).toBe("/up");
  });

  it.each([
    [
      { build_plan: { install: { command: "npm ci --//registry.npmjs.org/:_authToken=abcdefghijkl" } } },
      "build_plan.install.command",
    ],
    [{ build_plan: { build: { command: "SECRET=abcdefghijk npm run build" } } }, "build_plan.build.command"],
    [{ build_plan: { start: { command: "GITHUB=ghp_" + "z".repeat(36) + " node s.js" } } }, "build_plan.start.command"],
    [{ build_plan: { health: { path: "/health?token=abcdefghij" } } }, "build_plan.health.path"],
    [{ entrypoint: { command: "node", args: ["s.js", "--password=abcdefghij"] } }, "entrypoint.args.1"],
    [{ runtime: { kind: "node" as const, version: "AKIAIOSFODNN7EXAMPLE" } }, "runtime.version"],
  ])("rejects a credential in %j", async (edits, field) => {
    const d = base();
    const snapshot = structuredClone(d);
    let err: unknown;
    try {
      applyDescriptorEdits(d, edits);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SourceRejection);
    expect(err).toMatchObject({ code: "credential_in_descriptor", detail: { field } });
    expect(d).toEqual(snapshot);
  });
});

describe("descriptorHash", () => {
  it("is the sha256 of the canonical JSON, independent of key order", async () => {
    const descriptor = base();
    const reverse = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reverse)
        : v && typeof v === "object"
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reverse(x)]),
            )
          : v;
    const shuffled = reverse(descriptor) as TDescriptor;
    expect(JSON.stringify(shuffled)).not.toBe(JSON.stringify(descriptor));
    expect(descriptorHash(descriptor)).toBe(sha256Hex(canonicalJson(descriptor)));
    expect(descriptorHash(shuffled)).toBe(descriptorHash(descriptor));
    expect(descriptorHash(applyDescriptorEdits(descriptor, { build_plan: { health: { path: "/" } } }))).not.toBe(
      descriptorHash(descriptor),
    );
  });
});

describe("ZDescriptorConfirmationRequest (spec 2.6)", () => {
  const parse = (body: unknown) => ZDescriptorConfirmationRequest.safeParse(body).success;
  it.each([
    [{}],
    [{ edits: {} }],
    [{ approve_widening: true }],
    [{ edits: { build_plan: {} } }],
    [
      {
        edits: {
          build_plan: {
            install: { command: null },
            build: { command: "npm run build" },
            start: { command: "node s.js" },
            health: { path: "/healthz" },
          },
          runtime: { kind: "node", version: "20" },
          entrypoint: { command: "node", args: [] },
          ports: [
            { port: 65535, protocol: "http" },
            { port: 1, protocol: "http" },
          ],
        },
        approve_widening: false,
      },
    ],
  ])("accepts %j", (body) => expect(parse(body)).toBe(true));

  it.each([
    [{ extra: 1 }],
    [{ approve_widening: "yes" }],
    [{ edits: null }],
    [{ edits: { workdir: "/" } }],
    [{ edits: { build_plan: { port: 3000 } } }],
    [{ edits: { build_plan: { install: {} } } }],
    [{ edits: { build_plan: { install: { command: "npm ci", package_manager: "npm" } } } }],
    [{ edits: { build_plan: { start: { command: null } } } }],
    [{ edits: { build_plan: { health: { path: "healthz" } } } }],
    [{ edits: { build_plan: { health: { path: "/", timeout_ms: 10 } } } }],
    [{ edits: { runtime: { kind: "shell", version: "1" } } }],
    [{ edits: { runtime: { kind: "node", version: "" } } }],
    [{ edits: { runtime: { kind: "node" } } }],
    [{ edits: { entrypoint: { command: "", args: [] } } }],
    [{ edits: { entrypoint: { command: "node" } } }],
    [{ edits: { entrypoint: { command: "node", args: [1] } } }],
    [{ edits: { ports: [{ port: 0, protocol: "http" }] } }],
    [{ edits: { ports: [{ port: 65536, protocol: "http" }] } }],
    [{ edits: { ports: [{ port: 80.5, protocol: "http" }] } }],
    [{ edits: { ports: [{ port: 80, protocol: "https" }] } }],
    [{ edits: { ports: [{ port: 80 }] } }],
    [{ edits: { ports: [{ port: 80, protocol: "http", name: "web" }] } }],
  ])("rejects %j", (body) => expect(parse(body)).toBe(false));

  it("can be extended with path parameters and stays strict", () => {
    const withPath = ZDescriptorConfirmationRequest.extend({
      rev: ZDescriptorConfirmationRequest.shape.approve_widening,
    });
    expect(withPath.safeParse({ rev: true }).success).toBe(true);
    expect(withPath.safeParse({ other: 1 }).success).toBe(false);
  });
});

describe("ZDescriptor (spec 2.5)", () => {
  it("has the shape of TDescriptor", () => {
    expectTypeOf<z.infer<typeof ZDescriptor>>().toEqualTypeOf<TDescriptor>();
  });

  it.each([
    [
      "a build plan missing a field",
      (d: TDescriptor) => delete (d.build_plan as Partial<NonNullable<TDescriptor["build_plan"]>>).env,
    ],
    ["a relative workdir", (d: TDescriptor) => (d.build_plan!.workdir = "app")],
    ["port 0", (d: TDescriptor) => (d.build_plan!.port = 0)],
    ["port 65536 in ports", (d: TDescriptor) => (d.ports = [{ port: 65536, protocol: "http" }])],
    ["a health path without /", (d: TDescriptor) => (d.build_plan!.health.path = "health")],
    ["a zero health timeout", (d: TDescriptor) => (d.build_plan!.health.timeout_ms = 0)],
    ["an env var other than PORT and NODE_ENV", (d: TDescriptor) => ((d.build_plan!.env as string[]) = ["HOME"])],
    ["an unknown package manager", (d: TDescriptor) => ((d.build_plan!.install.package_manager as string) = "bun")],
    [
      "a field source other than detected or developer",
      (d: TDescriptor) => ((d.field_sources as Record<string, string>).runtime = "guessed"),
    ],
    ["a runtime kind other than node or shell", (d: TDescriptor) => ((d.runtime.kind as string) = "python")],
    ["a missing entrypoint", (d: TDescriptor) => delete (d as Partial<TDescriptor>).entrypoint],
  ])("rejects %s", async (_what, mutate) => {
    const descriptor = base();
    expect(ZDescriptor.safeParse(descriptor).success).toBe(true);
    mutate(descriptor);
    expect(ZDescriptor.safeParse(descriptor).success).toBe(false);
  });

  it("accepts a descriptor without build_plan", async () => {
    const { build_plan: _bp, ...rest } = base();
    expect(ZDescriptor.safeParse(rest).success).toBe(true);
  });
});
