import { describe, expect, it } from "vitest";
import * as detection from "./descriptor-detection";
import { detectDescriptor, UnsupportedSource, ZDescriptor } from "./descriptor-detection";
import { SourceRejection, type TDescriptor, type TTreeEntry } from "./source.types";

function detect(files: Record<string, string>, extra: TTreeEntry[] = []) {
  const entries: TTreeEntry[] = [
    ...Object.entries(files).map(([path, text]) => ({ path, kind: "file" as const, size: text.length, mode: 0o644 })),
    ...extra,
  ];
  return detectDescriptor(entries, async (p) => {
    if (!Object.hasOwn(files, p)) throw new Error(`read of ${p}, which is not a file`);
    return files[p]!;
  });
}
const pkg = (o: Record<string, unknown>) => JSON.stringify(o);
const codes = (f: { code: string }[]) => f.map((x) => x.code);
async function rejection(p: Promise<unknown>): Promise<SourceRejection> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SourceRejection);
  return err as SourceRejection;
}

describe("detectDescriptor: a typical node app", () => {
  it("builds the whole descriptor with every field detected", async () => {
    const { descriptor, findings } = await detect({
      "package.json": pkg({
        packageManager: "pnpm@9.1.0",
        scripts: { build: "next build", start: "next start" },
        engines: { node: ">=20" },
      }),
      "pnpm-lock.yaml": "lockfileVersion: 9",
    });
    expect(findings).toEqual([]);
    expect(descriptor).toEqual({
      runtime: { kind: "node", version: ">=20" },
      entrypoint: { command: "pnpm", args: ["run", "start"] },
      ports: [{ port: 3000, protocol: "http" }],
      field_sources: {
        runtime: "detected",
        entrypoint: "detected",
        ports: "detected",
        "build_plan.runtime": "detected",
        "build_plan.workdir": "detected",
        "build_plan.install": "detected",
        "build_plan.build": "detected",
        "build_plan.start": "detected",
        "build_plan.port": "detected",
        "build_plan.health": "detected",
        "build_plan.env": "detected",
      },
      build_plan: {
        runtime: { kind: "node", version: ">=20" },
        workdir: "/",
        install: { package_manager: "pnpm", command: "pnpm install --frozen-lockfile" },
        build: { command: "pnpm run build" },
        start: { command: "pnpm run start" },
        port: 3000,
        health: { path: "/", timeout_ms: 5000 },
        env: ["PORT", "NODE_ENV"],
      },
    } satisfies TDescriptor);
    expect(ZDescriptor.parse(descriptor)).toEqual(descriptor);
  });
});

describe("detectDescriptor: package manager and install", () => {
  it.each([
    [{ "pnpm-lock.yaml": "" }, "pnpm", "pnpm install --frozen-lockfile"],
    [{ "yarn.lock": "" }, "yarn", "yarn install --frozen-lockfile"],
    [{ "package-lock.json": "{}" }, "npm", "npm ci"],
    [{ "npm-shrinkwrap.json": "{}" }, "npm", "npm ci"],
    [{ "package-lock.json": "{}", "npm-shrinkwrap.json": "{}" }, "npm", "npm ci"],
  ])("lockfiles %j -> %s", async (lockfiles, pm, install) => {
    const { descriptor, findings } = await detect({
      "package.json": pkg({ scripts: { start: "node s.js" } }),
      ...lockfiles,
    });
    expect(descriptor.build_plan!.install).toEqual({ package_manager: pm, command: install });
    expect(findings).toEqual([]);
  });

  it("takes packageManager first (the version and corepack hash are ignored)", async () => {
    const { descriptor } = await detect({
      "package.json": pkg({ packageManager: "yarn@1.22.22+sha512.abc" }),
      "yarn.lock": "",
    });
    expect(descriptor.build_plan!.install).toEqual({
      package_manager: "yarn",
      command: "yarn install --frozen-lockfile",
    });
  });

  it("falls back to npm install with an info finding when there is no lockfile", async () => {
    const { descriptor, findings } = await detect({ "package.json": pkg({ main: "s.js" }) });
    expect(descriptor.build_plan!.install).toEqual({ package_manager: "npm", command: "npm install" });
    expect(findings).toEqual([expect.objectContaining({ kind: "descriptor", severity: "info", code: "no_lockfile" })]);
  });

  it("uses packageManager without a lockfile, without the frozen flag", async () => {
    const { descriptor, findings } = await detect({
      "package.json": pkg({ packageManager: "pnpm@9.1.0", main: "s.js" }),
    });
    expect(descriptor.build_plan!.install).toEqual({ package_manager: "pnpm", command: "pnpm install" });
    expect(codes(findings)).toEqual(["no_lockfile"]);
  });

  it("does not guess with several lockfiles and no packageManager", async () => {
    const { descriptor, findings } = await detect({
      "package.json": pkg({ scripts: { start: "node s.js", build: "tsc" } }),
      "yarn.lock": "",
      "package-lock.json": "{}",
    });
    expect(descriptor.build_plan!.install).toEqual({ package_manager: null, command: null });
    // Scripts still run through npm, which every node image has.
    expect(descriptor.entrypoint).toEqual({ command: "npm", args: ["run", "start"] });
    expect(descriptor.build_plan!.build.command).toBe("npm run build");
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: "warning", code: "multiple_lockfiles" });
    expect(findings[0]!.message).toContain("yarn.lock");
    expect(findings[0]!.message).toContain("package-lock.json");
  });

  it("uses packageManager with several lockfiles", async () => {
    const { descriptor, findings } = await detect({
      "package.json": pkg({ packageManager: "pnpm@9", main: "s.js" }),
      "pnpm-lock.yaml": "",
      "yarn.lock": "",
    });
    expect(descriptor.build_plan!.install).toEqual({
      package_manager: "pnpm",
      command: "pnpm install --frozen-lockfile",
    });
    expect(codes(findings)).toEqual(["multiple_lockfiles"]);
  });

  it("warns when the lockfile contradicts packageManager and follows packageManager", async () => {
    const { descriptor, findings } = await detect({
      "package.json": pkg({ packageManager: "pnpm@9.1.0", main: "s.js" }),
      "yarn.lock": "",
    });
    expect(descriptor.build_plan!.install).toEqual({ package_manager: "pnpm", command: "pnpm install" });
    expect(findings).toEqual([expect.objectContaining({ severity: "warning", code: "lockfile_mismatch" })]);
    const both = await detect({
      "package.json": pkg({ packageManager: "pnpm@9", main: "s.js" }),
      "yarn.lock": "",
      "package-lock.json": "{}",
    });
    expect(codes(both.findings)).toEqual(["multiple_lockfiles", "lockfile_mismatch"]);
  });

  it("ignores an unsupported packageManager with a warning", async () => {
    const { descriptor, findings } = await detect({
      "package.json": pkg({ packageManager: "bun@1.1.0", main: "s.js" }),
      "yarn.lock": "",
    });
    expect(descriptor.build_plan!.install.package_manager).toBe("yarn");
    expect(findings).toEqual([expect.objectContaining({ severity: "warning", code: "unsupported_package_manager" })]);
  });

  it("ignores lockfiles that are not regular files", async () => {
    const { descriptor } = await detect({ "package.json": pkg({ main: "s.js" }) }, [
      { path: "yarn.lock", kind: "symlink", size: 0, mode: 0o644, linkTarget: "x" },
    ]);
    expect(descriptor.build_plan!.install.command).toBe("npm install");
  });
});

describe("detectDescriptor: start and build", () => {
  it.each([
    ["npm", { "package-lock.json": "{}" }, "npm run start", ["run", "start"], "npm run build"],
    ["pnpm", { "pnpm-lock.yaml": "" }, "pnpm run start", ["run", "start"], "pnpm run build"],
    ["yarn", { "yarn.lock": "" }, "yarn start", ["start"], "yarn build"],
  ])("runs scripts.start and scripts.build through %s", async (pm, lock, start, args, build) => {
    const { descriptor } = await detect({
      "package.json": pkg({ scripts: { start: "node server.js", build: "tsc" } }),
      ...lock,
    });
    expect(descriptor.entrypoint).toEqual({ command: pm, args });
    expect(descriptor.build_plan!.start.command).toBe(start);
    expect(descriptor.build_plan!.build.command).toBe(build);
  });

  it("uses main when there is no start script, and has no build without a build script", async () => {
    const { descriptor, findings } = await detect({
      "package.json": pkg({ main: "dist/server.js" }),
      "package-lock.json": "{}",
    });
    expect(descriptor.entrypoint).toEqual({ command: "node", args: ["dist/server.js"] });
    expect(descriptor.build_plan!.start.command).toBe("node dist/server.js");
    expect(descriptor.build_plan!.build.command).toBeNull();
    expect(findings).toEqual([]);
  });

  it("shell-quotes an unusual main in the start command", async () => {
    const { descriptor } = await detect({ "package.json": pkg({ main: "my app's.js" }), "package-lock.json": "{}" });
    expect(descriptor.entrypoint.args).toEqual(["my app's.js"]);
    expect(descriptor.build_plan!.start.command).toBe(`node 'my app'\\''s.js'`);
  });

  it("uses index.js when there is neither start nor main", async () => {
    const { descriptor, findings } = await detect({
      "package.json": pkg({ scripts: { start: "  " } }),
      "index.js": "",
      "package-lock.json": "{}",
    });
    expect(descriptor.entrypoint).toEqual({ command: "node", args: ["index.js"] });
    expect(findings).toEqual([]);
  });

  it("reports no_start_command and keeps a placeholder when nothing starts the app", async () => {
    const { descriptor, findings } = await detect({
      "package.json": pkg({ scripts: { build: "tsc" } }),
      "package-lock.json": "{}",
    });
    expect(descriptor.entrypoint).toEqual({ command: "node", args: ["index.js"] });
    expect(descriptor.build_plan!.start.command).toBe("node index.js");
    expect(findings).toEqual([expect.objectContaining({ severity: "error", code: "no_start_command" })]);
    expect(ZDescriptor.safeParse(descriptor).success).toBe(true);
  });
});

describe("detectDescriptor: runtime version and port", () => {
  it.each([
    [{ "package.json": pkg({ engines: { node: " 20.x " } }), ".nvmrc": "18" }, "20.x"],
    [{ "package.json": pkg({}), ".nvmrc": "v20.11.1\n" }, "20.11.1"],
    [{ "package.json": pkg({}), ".nvmrc": "# pinned\n\n  lts/iron  \n" }, "lts/iron"],
    [{ "package.json": pkg({}), ".node-version": "22.1.0" }, "22.1.0"],
    [{ "package.json": pkg({}), ".nvmrc": "v18", ".node-version": "22" }, "18"],
    [{ "package.json": pkg({ engines: { node: 20 } }) }, null],
    [{ "package.json": pkg({}) }, null],
  ])("%j -> version %s", async (files, version) => {
    const { descriptor } = await detect(files);
    expect(descriptor.runtime).toEqual({ kind: "node", version });
    expect(descriptor.build_plan!.runtime).toEqual({ kind: "node", version });
  });

  it.each([
    [{ config: { port: 8080 } }, 8080],
    [{ config: { port: "4000" } }, 4000],
    [{ config: { port: 8080 }, scripts: { start: "next start -p 4000" } }, 8080],
    [{ config: { port: 70000 }, scripts: { start: "next start -p 4000" } }, 4000],
    [{ scripts: { start: "next start -p 4001" } }, 4001],
    [{ scripts: { start: "vite preview --port 5000" } }, 5000],
    [{ scripts: { start: "vite preview --port=5001" } }, 5001],
    [{ scripts: { start: "PORT=4002 node server.js" } }, 4002],
    [{ scripts: { start: "node server.js --port ${PORT:-4003}" } }, 4003],
    [{ scripts: { start: "PORT=70000 node server.js" } }, 3000],
    [{ scripts: { start: "APP_PORT=4004 node server.js" } }, 3000],
    [{ scripts: { start: "node server.js" } }, 3000],
    [{}, 3000],
  ])("%j -> port %i", async (json, port) => {
    const { descriptor } = await detect({ "package.json": pkg(json), "package-lock.json": "{}" });
    expect(descriptor.ports).toEqual([{ port, protocol: "http" }]);
    expect(descriptor.build_plan!.port).toBe(port);
  });
});

describe("detectDescriptor: shell apps", () => {
  it("runs start.sh with sh", async () => {
    const { descriptor, findings } = await detect({ "start.sh": "#!/bin/sh\nexec ./server\n" });
    expect(findings).toEqual([]);
    expect(descriptor).toMatchObject({
      runtime: { kind: "shell", version: null },
      entrypoint: { command: "sh", args: ["start.sh"] },
      ports: [{ port: 3000, protocol: "http" }],
      build_plan: {
        runtime: { kind: "shell", version: null },
        workdir: "/",
        install: { package_manager: null, command: null },
        build: { command: null },
        start: { command: "sh start.sh" },
        port: 3000,
        health: { path: "/", timeout_ms: 5000 },
        env: ["PORT"],
      },
    });
    expect(Object.values(descriptor.field_sources).every((s) => s === "detected")).toBe(true);
    expect(ZDescriptor.safeParse(descriptor).success).toBe(true);
  });

  it.each([["#!/bin/bash"], ["#!/usr/bin/env bash"], ["#!/bin/bash -eu"]])(
    "runs %s scripts with bash",
    async (shebang) => {
      const { descriptor } = await detect({ "start.sh": `${shebang}\necho hi\n` });
      expect(descriptor.entrypoint).toEqual({ command: "bash", args: ["start.sh"] });
      expect(descriptor.build_plan!.start.command).toBe("bash start.sh");
    },
  );

  it.each([
    ["PORT=8080\nexec ./server", 8080],
    ["exec ./server --listen ${PORT:-9000}", 9000],
    ["exec ./server -p 4000", 3000],
  ])("finds the port in %j", async (body, port) => {
    const { descriptor } = await detect({ "start.sh": `#!/bin/sh\n${body}\n` });
    expect(descriptor.build_plan!.port).toBe(port);
    expect(descriptor.ports).toEqual([{ port, protocol: "http" }]);
  });

  it("prefers package.json over start.sh", async () => {
    const { descriptor } = await detect({
      "package.json": pkg({ scripts: { start: "sh start.sh" } }),
      "start.sh": "#!/bin/sh\n",
    });
    expect(descriptor.runtime.kind).toBe("node");
  });
});

describe("detectDescriptor: unsupported repositories", () => {
  it.each([
    ["nothing at the root", {}, /No package.json or start.sh/],
    ["only nested files", { "app/package.json": "{}", "bin/start.sh": "#!/bin/sh" }, /No package.json or start.sh/],
    ["start.sh without a shebang", { "start.sh": "echo hi\n" }, /no shebang/],
    ["invalid package.json", { "package.json": "{ nope" }, /not valid JSON/],
    ["a package.json array", { "package.json": "[]" }, /not a JSON object/],
  ])("rejects %s", async (_what, files, message) => {
    const err = await detect(files).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnsupportedSource);
    expect((err as Error).message).toMatch(message);
  });

  it("ignores a symlinked package.json", async () => {
    const err = await detect({}, [
      { path: "package.json", kind: "symlink", size: 0, mode: 0o644, linkTarget: "x/package.json" },
    ]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnsupportedSource);
  });

  it("accepts a package.json with a BOM", async () => {
    expect((await detect({ "package.json": "\uFEFF{}" })).descriptor.runtime.kind).toBe("node");
  });
});

describe("detectDescriptor: credentials in descriptor fields", () => {
  const KEY = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2";
  it.each([
    [{ scripts: { start: `OPENAI_KEY=${KEY} node s.js` } }, "build_plan.start.command"],
    [
      { scripts: { start: "node s.js", prestart: "curl https://bot:hunter22@example.com/x" } },
      "build_plan.start.command",
    ],
    [{ scripts: { build: "AWS=AKIAABCDEFGHIJKLMNOP tsc" } }, "build_plan.build.command"],
    [
      { scripts: { postbuild: "x", build: "tsc", prebuild: "API_KEY=supersecretvalue123 gen" } },
      "build_plan.build.command",
    ],
    [{ scripts: { postinstall: `echo ghp_${"x".repeat(36)}` } }, "build_plan.install.command"],
    [{ main: `xoxb-${"1".repeat(12)}.js` }, "build_plan.start.command"],
  ])("rejects %j naming %s", async (json, field) => {
    const err = await rejection(detect({ "package.json": pkg(json), "package-lock.json": "{}" }));
    expect(err.code).toBe("credential_in_descriptor");
    expect(err.detail).toEqual({ field });
    expect(err.message).not.toContain(KEY);
  });

  it("rejects a credential in start.sh", async () => {
    const err = await rejection(
      detect({ "start.sh": "#!/bin/sh\ncat <<EOF > key\n-----BEGIN RSA PRIVATE KEY-----\nEOF\n" }),
    );
    expect(err.detail).toEqual({ field: "build_plan.start.command" });
  });

  it("does not scan scripts no command runs, nor variable references", async () => {
    const ok = await detect({
      "package.json": pkg({
        scripts: { prebuild: `TOKEN=${KEY}`, deploy: `TOKEN=${KEY}`, start: "TOKEN=${GITHUB_TOKEN} node s.js" },
      }),
      "package-lock.json": "{}",
    });
    expect(ok.descriptor.build_plan!.build.command).toBeNull();
  });
});

describe("descriptor-detection exports", () => {
  it("re-exports what the router and services import from it", () => {
    for (const name of [
      "applyDescriptorEdits",
      "descriptorHash",
      "findCredential",
      "ZDescriptor",
      "ZDescriptorConfirmationRequest",
    ]) {
      expect(detection).toHaveProperty(name);
    }
  });
});
