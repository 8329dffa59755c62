import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { checkNodeCommand, FOREIGN, knownCapstanVariables } from "./support/deploy-check";

/**
 * No container engine runs here, so the Dockerfile and compose.yaml are
 * checked for what can go wrong without one: every command they run exists
 * (a file in the repository or one `npm run build` writes), every variable
 * they set is one Capstan (or the image it configures) reads, the image is
 * multi-stage, runs as a non-root user under an init, and carries the
 * runner role's sandbox packages. test/production-artifact.int.test.ts runs
 * the same commands from an `npm ci --omit=dev` install.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const read = (f: string) => readFileSync(path.join(ROOT, f), "utf8");

describe("Dockerfile", () => {
  const text = read("Dockerfile");
  const lines = text.split("\n").filter((l) => !l.trimStart().startsWith("#"));

  it("is multi-stage, non-root, tini as PID 1, node as the command, with the runner's sandbox packages", () => {
    const stages = lines.filter((l) => /^FROM /.test(l));
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/npm ci --omit=dev/);
    expect(text).toMatch(/RUN npm run build/);
    const user = /^USER (\S+)/m.exec(text)?.[1];
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)$/);
    expect(text).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]/m);
    const apt = /apt-get install[^\n]*/.exec(text)?.[0] ?? "";
    for (const pkg of ["tini", "bubblewrap", "runsc", "git", "tar", "ca-certificates"])
      expect(apt.split(/\s+/), pkg).toContain(pkg);
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(text)?.[1] ?? "[]") as string[];
    expect(checkNodeCommand(cmd)).toEqual([]);
  });

  it("copies only what exists or what the build stage produces", () => {
    const produced = new Set([".next", "dist", "node_modules"]);
    for (const l of lines.filter((x) => /^COPY /.test(x))) {
      const words = l
        .split(/\s+/)
        .slice(1)
        .filter((w) => !w.startsWith("--"));
      for (const src of words.slice(0, -1)) {
        const rel = src.replace(/^\/app\//, "");
        if (rel === ".") continue;
        expect(existsSync(path.join(ROOT, rel)) || produced.has(rel), `${l}: ${rel}`).toBe(true);
      }
    }
  });

  it("sets only variables Capstan reads", () => {
    const known = knownCapstanVariables();
    const env = text.match(/^ENV[\s\S]*?(?=\n\S)/m)?.[0] ?? "";
    const names = [...env.matchAll(/([A-Z][A-Z0-9_]+)=/g)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((n) => !known.has(n))).toEqual([]);
  });
});

describe("compose.yaml", () => {
  type TService = {
    image?: string;
    build?: string;
    command?: string[];
    environment?: Record<string, string>;
    depends_on?: Record<string, unknown> | string[];
    env_file?: string;
  };
  const doc = parse(read("compose.yaml"), { merge: true }) as { services: Record<string, TService> };
  const services = doc.services;
  const ours = Object.entries(services).filter(([, s]) => s.image === "capstan:latest");

  it("runs web, worker (with the runner role) and migrate from our image next to PostgreSQL, Redis and an S3-compatible store", () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(["postgres", "redis", "minio", "web", "worker", "migrate"]),
    );
    expect(services.web!.environment!.CAPSTAN_ROLES).toBe("web");
    expect(services.worker!.environment!.CAPSTAN_ROLES).toBe("worker,runner");
    expect(services.migrate!.command).toEqual(["node", "dist/cli.mjs", "migrate"]);
    for (const name of ["web", "worker"]) {
      expect(
        services[name]!.environment!.CAPSTAN_MIGRATE_ON_START,
        `${name} leaves migrating to the migrate step`,
      ).toBe("0");
      expect(Object.keys(services[name]!.depends_on as Record<string, unknown>)).toContain("migrate");
    }
  });

  it("every command of ours exists, every dependency is a service", () => {
    expect(ours.length).toBeGreaterThanOrEqual(3);
    for (const [name, s] of ours) expect(checkNodeCommand(s.command ?? []), name).toEqual([]);
    for (const [name, s] of Object.entries(services)) {
      const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
      for (const d of deps) expect(Object.keys(services), `${name} depends on ${d}`).toContain(d);
    }
  });

  it("sets only variables Capstan (or the image it configures) reads, and the example .env names them all", () => {
    const known = knownCapstanVariables();
    const set = new Set<string>();
    for (const [, s] of ours) for (const k of Object.keys(s.environment ?? {})) set.add(k);
    const example = read("deploy/compose.env.example");
    const exampleKeys = [...example.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!);
    for (const k of exampleKeys) set.add(k);
    expect([...set].filter((k) => !known.has(k) && !FOREIGN.test(k))).toEqual([]);
    // ${VAR} references in compose.yaml come from that .env.
    const refs = [...read("compose.yaml").matchAll(/\$\{([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!);
    expect(refs.filter((r) => !exampleKeys.includes(r))).toEqual([]);
    for (const must of [
      "DATABASE_URL",
      "CAPSTAN_MASTER_KEY",
      "NEXTAUTH_SECRET",
      "CAPSTAN_PUBLIC_URL",
      "CAPSTAN_BLOB_S3_BUCKET",
      "CAPSTAN_REDIS_URL",
    ]) {
      expect(exampleKeys, must).toContain(must);
    }
  });
});

describe("dist/ (npm run build's worker, runner and CLI bundle)", () => {
  it("imports only production dependencies, each resolvable by Node's ESM loader", () => {
    const out = path.join(ROOT, ".test-output", `dist-check-${process.pid}`);
    execFileSync(process.execPath, [path.join(ROOT, "scripts", "build-dist.mjs")], {
      cwd: ROOT,
      env: { ...process.env, CAPSTAN_DIST_DIR: out },
      stdio: "pipe",
    });
    try {
      const files = [...readdirSync(out), ...readdirSync(path.join(out, "chunks")).map((f) => `chunks/${f}`)].filter(
        (f) => f.endsWith(".mjs"),
      );
      const specs = new Set<string>();
      for (const f of files) {
        for (const m of readFileSync(path.join(out, f), "utf8").matchAll(
          /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"([^"]+)"/g,
        ))
          specs.add(m[1]!);
      }
      const bare = [...specs].filter((s) => !s.startsWith(".") && !s.startsWith("node:"));
      expect(bare.length).toBeGreaterThan(5);
      const deps = Object.keys(
        (JSON.parse(read("package.json")) as { dependencies: Record<string, string> }).dependencies,
      );
      const pkgOf = (s: string) =>
        s
          .split("/")
          .slice(0, s.startsWith("@") ? 2 : 1)
          .join("/");
      expect(bare.filter((s) => !deps.includes(pkgOf(s)))).toEqual([]);
      // Node's own resolution (no bundler leniency: a directory import of a CommonJS package fails here).
      // import.meta.resolve is lenient about directories; loading is not, so the target must be a file.
      const script = [
        `import { statSync } from "node:fs"; import { fileURLToPath } from "node:url"; const out = [];`,
        `for (const s of JSON.parse(process.argv[1])) { try { const u = import.meta.resolve(s);`,
        `if (u.startsWith("file:") && !statSync(fileURLToPath(u)).isFile()) out.push(s + ": a directory"); } catch (e) { out.push(s + ": " + e.code); } }`,
        `console.log(JSON.stringify(out));`,
      ].join("\n");
      const unresolved = execFileSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(bare)], {
        cwd: out,
        encoding: "utf8",
      });
      expect(JSON.parse(unresolved)).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
