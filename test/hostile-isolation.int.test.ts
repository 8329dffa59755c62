import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/platform/db/client";
import type { TRuntimeState } from "@/server/runtime";
import { bootApp, makeUser, makeWorkspace } from "./support/api";
import { HEALTH_EDIT, makeAppRepo } from "./support/deploy-fixtures";
import { startDnsServer, type TDnsServer } from "./support/dns-server";
import {
  ATTEMPTS,
  capstanKnowsMode,
  dirBytes,
  findFiles,
  hostOffers,
  MODE_LABEL,
  MODES,
  pct,
  reportedLimit,
  sha256File,
  writeTable,
  type TAttempt,
  type TCell,
  type TColumn,
  type TVerdict,
} from "./support/hostile";
import { startServer, stopServer, type TServer } from "./support/spawn-server";

/**
 * The hostile-app suite (issue #31 item 5, issue #38's bomb tests): the
 * fixture app test/fixtures/hostile-app deployed through Capstan's real API
 * (a separate Capstan process, test/support/app-server.ts with its worker and
 * runner roles, so its port, /readyz and environment are real) under every
 * sandbox mode, once per mode. Each attempt is classified refused /
 * contained / allowed from the app's own report plus what only the host can
 * see (files on the host, the owner of a file the app wrote, queries our
 * resolver received, the log's size); the table goes to
 * test-results/containment.json and `node scripts/containment-table.mjs`
 * puts it into docs/hosted-apps.md. A mode the host (or this Capstan) lacks is a
 * column that says so, and the assertion is then that Capstan refuses it.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const FIXTURE = path.join(ROOT, "test", "fixtures", "hostile-app");
const TABLE = path.join(ROOT, "test-results", "containment.json");
const columns: TColumn[] = [];
const dataDir = process.env.CAPSTAN_DATA_DIR!;
let dns: TDnsServer;
let v6: { port: number; hits: number; close: () => void } | null = null;

beforeAll(async () => {
  await bootApp();
  dns = await startDnsServer();
  const server = net.createServer((c) => {
    if (v6) v6.hits++;
    c.destroy();
  });
  v6 = await new Promise((resolve) => {
    server.once("error", () => resolve(null));
    server.listen(0, "::1", () =>
      resolve({ port: (server.address() as net.AddressInfo).port, hits: 0, close: () => server.close() }),
    );
  });
});

afterAll(async () => {
  writeTable(columns, TABLE);
  v6?.close();
  await dns?.close();
});

const files = () =>
  Object.fromEntries(readdirSync(FIXTURE).map((f) => [f, readFileSync(path.join(FIXTURE, f), "utf8")]));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type TCtx = {
  server: TServer;
  base: string;
  token: string;
  ws: string;
  runnerRoot: string;
  marker: string;
  a: { id: string; srf: string };
  b: { id: string; srf: string };
  isolation: Record<string, unknown>;
};

async function call(ctx: Pick<TCtx, "base" | "token">, method: string, p: string, body?: unknown, timeoutMs = 30_000) {
  const r = await fetch(ctx.base + p, {
    method,
    signal: AbortSignal.timeout(timeoutMs),
    headers: {
      authorization: `Bearer ${ctx.token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  let json: any = null; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: r.status, json, text };
}

async function poll<T>(what: string, fn: () => Promise<T | null>, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** Intake, freeze, confirm (all over the server's REST API); returns the revision. */
async function freezeHostile(ctx: Pick<TCtx, "base" | "token" | "ws">): Promise<string> {
  const intake = await call(ctx, "POST", `/v1/workspaces/${ctx.ws}/products`, {
    repo_url: makeAppRepo({ files: files() }),
    ref: "main",
    auth: { kind: "none" },
  });
  expect(intake.status, intake.text).toBe(202);
  const freeze = await poll(
    "the freeze",
    async () => {
      const f = await call(ctx, "GET", `/v1/workspaces/${ctx.ws}/source-freezes/${intake.json.source_freeze_id}`);
      return f.json?.status === "pending" ? null : f.json;
    },
    120_000,
  );
  expect(freeze.status, JSON.stringify(freeze)).toBe("frozen");
  const confirm = await call(
    ctx,
    "POST",
    `/v1/workspaces/${ctx.ws}/products/${intake.json.product_id}/revisions/${freeze.revision.id}/descriptor:confirm`,
    { edits: HEALTH_EDIT },
  );
  expect(confirm.status, confirm.text).toBe(200);
  return freeze.revision.id;
}

async function deployHostile(ctx: Pick<TCtx, "base" | "token" | "ws">, rev: string, slot: string) {
  const created = await call(ctx, "POST", `/v1/workspaces/${ctx.ws}/revisions/${rev}/deployments`, {
    environment_type: "preview",
    slot,
  });
  expect(created.status, created.text).toBe(202);
  return poll(
    `deployment ${slot}`,
    async () => {
      const d = await call(ctx, "GET", `/v1/workspaces/${ctx.ws}/deployments/${created.json.id}`);
      return ["planned", "applying"].includes(d.json?.status) ? null : d.json;
    },
    300_000,
  );
}

const attack = (ctx: TCtx, name: string, params: unknown, timeoutMs = 240_000) =>
  call(ctx, "POST", `/s/${ctx.a.srf}/attack/${name}`, params, timeoutMs);

/** Runs `p` while the neighbour deployment and /readyz are asked every 100 ms; every answer is recorded. */
async function watched<T>(ctx: TCtx, p: Promise<T>) {
  const neighbour: number[] = [];
  const failures: string[] = [];
  let readyz = 0;
  let settled = false;
  const done = p.finally(() => (settled = true));
  while (!settled) {
    const started = performance.now();
    const [n, r] = await Promise.all([
      fetch(`${ctx.base}/s/${ctx.b.srf}/health`, { signal: AbortSignal.timeout(5_000) }).then(
        (x) => x.status,
        (e: Error) => e.name,
      ),
      fetch(`${ctx.base}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
        (x) => x.status,
        (e: Error) => e.name,
      ),
    ]);
    if (n === 200) neighbour.push(performance.now() - started);
    else failures.push(`neighbour ${n}`);
    if (r === 200) readyz++;
    else failures.push(`readyz ${r}`);
    await sleep(100);
  }
  return { result: await done, neighbour, readyz, failures };
}

/** The Capstan-side reason when the app or its request did not survive an attempt. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function capstanReason(ctx: TCtx, res: { status: number; json: any }) {
  const d = await call(ctx, "GET", `/v1/workspaces/${ctx.ws}/deployments/${ctx.a.id}`);
  return {
    request_status: res.status,
    request_detail: res.status === 200 ? null : (res.json?.detail ?? null),
    deployment_status: d.json?.status,
    reason_code: d.json?.reason_code ?? null,
    findings: (d.json?.findings ?? []).map((f: { code: string; message: string }) =>
      `${f.code}: ${f.message}`.slice(0, 300),
    ),
  };
}

/** The distinct error codes of some attempts ("ECONNREFUSED, ENETUNREACH"); a success reads "read something". */
const codes = (results: Array<{ error?: string | null; ok?: boolean }>) =>
  [
    ...new Set(
      results.map((r) => (r.error ? r.error.split(":")[0]!.trim() : r.ok ? "read something else" : "no answer")),
    ),
  ].join(", ");

const cell = (verdict: TVerdict, why: string, evidence: unknown): TCell => ({ verdict, why, evidence });

/** The reconciler's words in the app's run log matching `pattern` (polled ~12 s: it runs every 5 s), or null. */
async function capstanSaid(ctx: TCtx, pattern: RegExp): Promise<string | null> {
  for (let i = 0; i < 12; i++) {
    const logs = await call(ctx, "GET", `/v1/workspaces/${ctx.ws}/deployments/${ctx.a.id}/logs`);
    const lines = String(logs.json?.run_log ?? "")
      .split("\n")
      .filter((l) => l.includes("[capstan] limit reached:") && pattern.test(l));
    if (lines.length)
      return lines[lines.length - 1]!.replace(/^.*\[capstan\] limit reached: /, "")
        .split(/(?<=\.) (?=[A-Z])/)
        .filter((sentence) => pattern.test(sentence))
        .join(" ")
        .slice(0, 400);
    await sleep(1_000);
  }
  return null;
}

for (const mode of MODES) {
  describe(`hostile app under ${MODE_LABEL[mode]}`, () => {
    let ctx: TCtx | null = null;
    let startError: string | null = null;
    const knows = capstanKnowsMode(mode);
    let offered = { offered: false, why: "" };
    const cells: Partial<Record<TAttempt, TCell>> = {};

    beforeAll(async () => {
      offered = await hostOffers(mode);
      if (!knows.known) return;
      const marker = `HOSTILE_MARKER_${randomBytes(8).toString("hex")}`;
      const runnerRoot = path.join(dataDir, `r-${mode}`);
      try {
        const server = await startServer(
          {
            APP_SERVER_ROLES: "1",
            CAPSTAN_ROLES: "web,worker,runner",
            CAPSTAN_WORKERS: "1",
            CAPSTAN_RUNNER_SANDBOX: mode,
            CAPSTAN_RUNNER_DIR: runnerRoot,
            SOURCE_ALLOW_LOCAL: "1",
            CAPSTAN_WORKER_POLL_MS: "200",
            CAPSTAN_SURFACE_TIMEOUT_MS: "300000",
            CAPSTAN_HOSTILE_MARKER: marker,
          },
          180_000,
        );
        const owner = await makeUser();
        const ws = (await makeWorkspace(owner.token)).id;
        const partial = { server, base: `http://127.0.0.1:${server.port}`, token: owner.token, ws };
        const rev = await freezeHostile(partial);
        const [a, b] = await Promise.all([
          deployHostile(partial, rev, "hostile"),
          deployHostile(partial, rev, "neighbour"),
        ]);
        expect(a.status, JSON.stringify(a.findings)).toBe("active");
        expect(b.status, JSON.stringify(b.findings)).toBe("active");
        ctx = {
          ...partial,
          runnerRoot,
          marker,
          a: { id: a.id, srf: a.surface_id },
          b: { id: b.id, srf: b.surface_id },
          isolation: a.isolation,
        };
      } catch (err) {
        startError = String((err as Error).message);
      }
    }, 600_000);

    afterAll(async () => {
      if (ctx) {
        for (const d of [ctx.a, ctx.b])
          await call(ctx, "POST", `/v1/workspaces/${ctx.ws}/deployments/${d.id}:stop`).catch(() => undefined);
        await stopServer(ctx.server);
        columns.push({ mode, available: true, isolation: ctx.isolation, cells });
      } else {
        columns.push({
          mode,
          available: false,
          reason: !knows.known
            ? `this Capstan does not offer CAPSTAN_RUNNER_SANDBOX=${mode}`
            : `${offered.why}; Capstan: ${(startError ?? "").split("\n")[0]!.slice(0, 200)}`,
        });
      }
    }, 120_000);

    it("runs the app in this mode when the host offers it, and refuses the mode when it cannot", () => {
      if (!knows.known) {
        // This Capstan's configuration has no such mode: the server refuses the setting at once.
        expect(knows.error).toMatch(/CAPSTAN_RUNNER_SANDBOX/);
        return;
      }
      if (!offered.offered) {
        // Forced onto a host without it, Capstan refuses to start (or runs nothing under that name).
        if (ctx) expect((ctx.isolation as { sandbox?: string }).sandbox).not.toBe(mode);
        else expect(startError).toMatch(new RegExp(mode === "gvisor" ? "gvisor|gVisor|runsc" : "bubblewrap|bwrap"));
        return;
      }
      expect(startError).toBeNull();
      expect(ctx!.isolation).toMatchObject({ sandbox: mode, profile: "isolated-vm" });
      if (mode === "none") expect(ctx!.isolation).toMatchObject({ enforced: false });
    });

    it("tries every attack; each is refused, contained or allowed as this mode promises", async () => {
      if (!ctx) {
        expect(knows.known && offered.offered, `mode ${mode} should have run: ${startError}`).toBe(false);
        return;
      }
      const c = ctx;
      const token = randomBytes(6).toString("hex");
      const depDir = (id: string) => path.join(c.runnerRoot, id);
      const runtimeOf = async (id: string) =>
        (await db().deployment.findUniqueOrThrow({ where: { id } })).runtime as TRuntimeState | null;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const ok200 = (name: string, r: { status: number; json: any; text: string }) => {
        expect(r.status, `${name}: ${r.text.slice(0, 500)}`).toBe(200);
        return r.json;
      };

      // Identity: what the app runs as, and who owns a file it writes, seen on the host.
      const who = ok200("whoami", await call(c, "GET", `/s/${c.a.srf}/whoami`));
      ok200("write-own", await call(c, "POST", `/s/${c.a.srf}/write-own`, { name: `owned-${token}`, content: token }));
      const ownedFiles = findFiles(depDir(c.a.id), `owned-${token}`);
      expect(ownedFiles, "the file the app wrote, on the host").toHaveLength(1);
      const owned = ownedFiles[0]!;
      expect(readFileSync(owned, "utf8")).toBe(token);
      const hostOwner = statSync(owned).uid;
      const capsEmpty = /^0+$/.test(who.status.CapEff ?? "x") && /^0+$/.test(who.status.CapPrm ?? "x");
      cells.identity =
        hostOwner === 0
          ? cell("allowed", `files it writes are host root's; uid ${who.uid} inside, CapEff ${who.status.CapEff}`, {
              who,
              host_owner: hostOwner,
            })
          : cell(
              "contained",
              `uid ${who.uid} inside, host owner uid ${hostOwner}, capabilities ${capsEmpty ? "none" : who.status.CapEff}`,
              { who, host_owner: hostOwner },
            );

      // Egress.
      const tcp = ok200(
        "tcp-capstan",
        await attack(c, "tcp-capstan", { hosts: ["127.0.0.1", "localhost"], port: c.server.port }),
      );
      cells["tcp-capstan"] = cell(
        tcp.verdict,
        tcp.verdict === "allowed" ? "connected to Capstan's port" : codes(tcp.evidence.results),
        tcp.evidence,
      );
      const pg = ok200("tcp-postgres", await attack(c, "tcp-postgres", { host: "127.0.0.1", port: 5432 }));
      cells["tcp-postgres"] = cell(
        pg.verdict,
        pg.verdict === "allowed"
          ? `connected${pg.evidence.postgres_answered ? ", PostgreSQL answered" : ""}`
          : codes(pg.evidence.results),
        pg.evidence,
      );
      const dnsName = `hostile-${mode}-${token}.test`;
      const [dnsHost, dnsPort] = dns.address.split(":");
      const u = ok200(
        "udp-dns",
        await attack(c, "udp-dns", { servers: [{ host: dnsHost, port: Number(dnsPort) }], name: dnsName }),
      );
      const heard = dns.queries.some((q) => q.startsWith(dnsName));
      cells["udp-dns"] =
        heard || u.verdict === "allowed"
          ? cell("allowed", heard ? "our resolver received the query" : "a resolver answered", u.evidence)
          : cell("refused", `nothing left the sandbox (${codes(u.evidence.results)})`, u.evidence);
      const hitsBefore = v6?.hits ?? 0;
      const six = ok200(
        "ipv6",
        await attack(c, "ipv6", { hosts: v6 ? ["::1"] : [], port: v6?.port ?? 9, dns_port: Number(dnsPort) }),
      );
      const v6Heard = (v6?.hits ?? 0) > hitsBefore;
      cells.ipv6 =
        v6Heard || six.verdict === "allowed"
          ? cell("allowed", v6Heard ? "our [::1] listener was reached" : "connected", six.evidence)
          : cell("refused", codes(six.evidence.results), six.evidence);

      // Privileged operations. Under gVisor they are served by its user-space kernel, never the host's.
      for (const name of ["raw-socket", "mount", "unshare"] as const) {
        const r = ok200(name, await attack(c, name, {}));
        const detail = JSON.stringify(r.evidence.sockets ?? r.evidence.namespaces ?? { tmpfs: r.evidence.tmpfs })
          .replace(/["{}]/g, "")
          .replace(/,/g, ", ");
        cells[name] =
          r.verdict === "allowed" && mode === "gvisor"
            ? cell("contained", `succeeded inside gVisor's kernel only (${detail})`, r.evidence)
            : cell(r.verdict, detail, r.evidence);
      }

      // Reads.
      const shadow = ok200("read-shadow", await attack(c, "read-shadow", {}));
      const sameShadow =
        shadow.evidence.results[0].sha256 && shadow.evidence.results[0].sha256 === sha256File("/etc/shadow");
      cells["read-shadow"] =
        shadow.verdict === "allowed" && !sameShadow
          ? cell("contained", "read the sandbox's own /etc/shadow, not the host's", shadow.evidence)
          : cell(
              shadow.verdict,
              shadow.verdict === "allowed" ? "read the host's /etc/shadow" : codes(shadow.evidence.results),
              shadow.evidence,
            );
      const canaryFile = path.join(dataDir, `hostile-canary-${token}.txt`);
      writeFileSync(canaryFile, `canary-${token}\n`);
      const pid = c.server.child.pid!;
      const dd = ok200(
        "read-data-dir",
        await attack(c, "read-data-dir", {
          paths: [dataDir, canaryFile, `/proc/${pid}/root${canaryFile}`],
          canary: `canary-${token}`,
        }),
      );
      cells["read-data-dir"] = cell(
        dd.verdict,
        dd.verdict === "allowed" ? "read the canary in Capstan's data directory" : codes(dd.evidence.results),
        dd.evidence,
      );
      rmSync(canaryFile, { force: true });
      ok200(
        "write-own (neighbour)",
        await call(c, "POST", `/s/${c.b.srf}/write-own`, { name: `secret-${token}`, content: `secret-of-b-${token}` }),
      );
      const bFiles = findFiles(depDir(c.b.id), `secret-${token}`);
      expect(bFiles, "the neighbour's file on the host").toHaveLength(1);
      const bFile = bFiles[0]!;
      const bPid = (await runtimeOf(c.b.id))?.pid;
      const od = ok200(
        "read-other-deployment",
        await attack(c, "read-other-deployment", {
          paths: [
            bFile,
            depDir(c.b.id),
            ...(bPid ? [`/proc/${bPid}/root/app/secret-${token}`, `/proc/${bPid}/cwd/secret-${token}`] : []),
          ],
          canary: `secret-of-b-${token}`,
        }),
      );
      cells["read-other-deployment"] = cell(
        od.verdict,
        od.verdict === "allowed" ? "read the neighbour's file" : codes(od.evidence.results),
        od.evidence,
      );
      const p1 = ok200("proc1-environ", await attack(c, "proc1-environ", { marker: c.marker }));
      const hostPid1 = sha256File("/proc/1/environ");
      cells["proc1-environ"] =
        p1.verdict === "contained" && hostPid1 && p1.evidence.sha256 === hostPid1
          ? cell("allowed", "read the host's pid 1 environment", p1.evidence)
          : cell(
              p1.verdict,
              p1.verdict === "refused"
                ? codes([p1.evidence])
                : p1.verdict === "allowed"
                  ? "found Capstan's marker"
                  : `its own sandbox's pid 1 (${String(p1.evidence.pid1_cmdline).slice(0, 60)})`,
              p1.evidence,
            );
      const ce = ok200("capstan-environ", await attack(c, "capstan-environ", { marker: c.marker, pid }));
      cells["capstan-environ"] = cell(
        ce.verdict,
        ce.verdict === "allowed"
          ? "found Capstan's marker variable"
          : `Capstan's /proc entry: ${codes([ce.evidence.direct])}; ${ce.evidence.processes_visible} processes visible, no marker`,
        ce.evidence,
      );

      // Writing outside its directory: only the host can tell a private /tmp from the real one.
      const wo = ok200(
        "write-outside",
        await attack(c, "write-outside", { token, paths: [c.runnerRoot, dataDir, depDir(c.b.id)] }),
      );
      const own = depDir(c.a.id) + path.sep;
      const hostName = (d: string) =>
        d === dataDir
          ? "Capstan's data directory"
          : d === c.runnerRoot
            ? "the runner directory"
            : d.startsWith(depDir(c.b.id))
              ? "the neighbour's directory"
              : d;
      const candidates = new Set<string>([
        ...[
          "/",
          "/etc",
          "/usr",
          "/usr/local",
          "/root",
          "/tmp",
          "/var/tmp",
          "/dev/shm",
          c.runnerRoot,
          dataDir,
          depDir(c.b.id),
          path.join(depDir(c.b.id), "app"),
        ].map((d) => path.join(d, `hostile-${token}`)),
        ...wo.evidence.results.filter((r: { ok: boolean }) => r.ok).map((r: { file: string }) => r.file),
      ]);
      const onHost = [...candidates].filter((f) => !f.startsWith(own) && existsSync(f));
      for (const f of onHost) rmSync(f, { force: true });
      const wrote = wo.evidence.results.filter((r: { ok: boolean }) => r.ok).map((r: { dir: string }) => r.dir);
      cells["write-outside"] = onHost.length
        ? cell("allowed", `created files on the host in ${onHost.map((f) => hostName(path.dirname(f))).join(", ")}`, {
            ...wo.evidence,
            on_host: onHost,
          })
        : wrote.length
          ? cell(
              "contained",
              `wrote only to the sandbox's own ${wrote.join(", ")}; nothing appeared on the host`,
              wo.evidence,
            )
          : cell("refused", "every write failed", wo.evidence);

      const pt = ok200("ptrace", await attack(c, "ptrace", { pid }));
      cells.ptrace = cell(
        pt.verdict,
        pt.verdict === "allowed"
          ? "seized Capstan's process"
          : `Capstan's pid: ${pt.evidence.capstan}${pt.evidence.parent === "ok" ? "; its own parent inside the sandbox: seized" : ""}`,
        pt.evidence,
      );

      // Bombs, bounded by this test; the neighbour and /readyz are asked throughout.
      const watchedRuns: Record<string, Awaited<ReturnType<typeof watched>>> = {};
      const said: Record<string, string | null> = {};
      const bomb = async (
        name: "fork-bomb" | "memory-bomb" | "disk-fill",
        params: Record<string, unknown>,
        unit: string,
        max: number,
        words: RegExp,
      ) => {
        const w = await watched(c, attack(c, name, params));
        watchedRuns[name] = w;
        // What Capstan said about it in words (the deployment's log), where the host can see the limit.
        said[name] = w.result.status === 200 ? await capstanSaid(c, words) : null;
        let reason = await capstanReason(c, w.result);
        if (w.result.status !== 200) {
          // The reconciler (every 5 s) ends the deployment with its reason in words: wait for it.
          for (let i = 0; i < 15 && reason.deployment_status === "active"; i++) {
            await sleep(1_000);
            reason = await capstanReason(c, w.result);
          }
          const words = reason.findings.find((f: string) => f.startsWith(`${reason.reason_code}:`));
          cells[name] = cell(
            "contained",
            `the app was stopped (${reason.reason_code ? `${words ?? reason.reason_code}`.replace(/\s+/g, " ").slice(0, 220) : (reason.request_detail ?? `HTTP ${w.result.status}`)})`,
            { reason },
          );
          return;
        }
        const e = w.result.json.evidence;
        const got = e.started ?? e.reached_mb ?? e.written_mb;
        cells[name] = cell(
          w.result.json.verdict,
          w.result.json.verdict === "allowed"
            ? `${got} of ${max} ${unit}, unchallenged`
            : `stopped at ${got} of ${max} ${unit} (${e.fork_error ?? e.error ?? e.signal ?? "?"})${said[name] ? `; Capstan: "${said[name]}"` : "; Capstan saw nothing"}`,
          { ...e, reason, capstan_said: said[name] },
        );
      };
      const limits = c.isolation;
      const forkMax = Math.min(4096, Math.max(1000, 2 * (reportedLimit(limits, ["pids", "process"]) ?? 0)));
      const memLimit = reportedLimit(limits, ["memory"]) ?? 0;
      const memMax = Math.min(4096, Math.max(1024, 2 * (memLimit > 1e6 ? memLimit / 2 ** 20 : memLimit)));
      const diskLimit = reportedLimit(limits, ["disk"]) ?? 0;
      const diskMax = Math.min(4096, Math.max(1024, 2 * (diskLimit > 1e6 ? diskLimit / 2 ** 20 : diskLimit)));
      await bomb("fork-bomb", { max: forkMax, hold_ms: 2_000 }, "processes", forkMax, /forks? (was|were) refused/);

      // The log: the launcher caps it (CAPSTAN_RUNNER_LOG_MAX_BYTES, one previous generation kept).
      const lf = await attack(c, "log-flood", { mb: 32 });
      const logDir = path.dirname(
        findFiles(depDir(c.a.id), "app.log")[0] ?? path.join(depDir(c.a.id), "log", "app.log"),
      );
      const logBytes = dirBytes(logDir);
      const logCap = 2 * 1024 * 1024 + 64 * 1024;
      cells["log-flood"] =
        lf.status === 200 && logBytes <= logCap + 512 * 1024
          ? cell("contained", `32 MiB written, ${Math.round(logBytes / 1024)} KiB kept on the host`, {
              log_dir: logDir,
              bytes: logBytes,
            })
          : cell(
              lf.status === 200 ? "allowed" : "contained",
              lf.status === 200
                ? `${Math.round(logBytes / 2 ** 20)} MiB kept on the host`
                : `request failed: ${lf.status}`,
              { log_dir: logDir, bytes: logBytes, status: lf.status },
            );

      // Busy loop beside the neighbour: its latency before and during.
      const baseline: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        const r = await fetch(`${c.base}/s/${c.b.srf}/health`);
        await r.text();
        if (r.status === 200) baseline.push(performance.now() - t);
      }
      const busy = await watched(c, attack(c, "busy-loop", { workers: 4, ms: 5_000 }));
      watchedRuns["busy-loop"] = busy;
      const during = busy.neighbour;
      const why = `neighbour p50 ${pct(baseline, 50)} -> ${pct(during, 50)} ms, p99 ${pct(baseline, 99)} -> ${pct(during, 99)} ms; its 4 busy processes ran ${Math.round((busy.result.json?.evidence?.cpu_share ?? 0) * 100)}% of the time`;
      cells["busy-loop"] =
        busy.failures.length === 0 && during.length > 0 && pct(during, 99) < 2_000
          ? cell("contained", why, { baseline, during, app: busy.result.json })
          : cell("allowed", `${why}; neighbour failures: ${busy.failures.join(", ") || "none"}`, {
              baseline,
              during,
              failures: busy.failures,
            });

      // Last, the bombs that may end the app, so the attacks above run on a live one: under gVisor the host's OOM
      // killer sees one sandbox, so the memory bomb's child takes the whole app; the disk is a tmpfs, whose pages
      // count against the memory cgroup too, so a fill past the memory limit ends the app (an OOM kill) in every mode.
      await bomb("memory-bomb", { max_mb: memMax }, "MiB", memMax, /killed that process/);
      await bomb("disk-fill", { max_mb: diskMax, token }, "MiB", diskMax, /filled its disk/);

      // --- What must hold in this mode. ---
      for (const [id] of ATTEMPTS)
        expect(cells[id]?.verdict, `${id} was classified`).toMatch(/^(refused|contained|allowed)$/);
      // Capstan and the neighbour keep answering whatever the app does.
      for (const [name, w] of Object.entries(watchedRuns)) {
        expect(w.failures, `${name}: neighbour and /readyz kept answering`).toEqual([]);
        expect(w.neighbour.length, `${name}: the neighbour was asked`).toBeGreaterThan(0);
        expect(w.readyz, `${name}: /readyz was asked`).toBeGreaterThan(0);
      }
      expect(cells["log-flood"].verdict, cells["log-flood"].why).toBe("contained");
      const verdicts = Object.fromEntries(Object.entries(cells).map(([k, v]) => [k, v.verdict]));
      if (mode !== "none") {
        // A sandbox: no egress at all, nothing of Capstan's or another deployment's can be read or written.
        for (const id of ["tcp-capstan", "tcp-postgres", "udp-dns", "ipv6"] as const)
          expect(verdicts[id], `${id}: ${cells[id]!.why}`).toBe("refused");
        for (const id of [
          "read-shadow",
          "read-data-dir",
          "read-other-deployment",
          "proc1-environ",
          "capstan-environ",
          "write-outside",
          "ptrace",
        ] as const) {
          expect(verdicts[id], `${id}: ${cells[id]!.why}`).not.toBe("allowed");
        }
      } else {
        // Unsandboxed: the positive controls that prove the attempts can see an escape when there is one.
        expect(verdicts["tcp-postgres"], cells["tcp-postgres"].why).toBe("allowed");
        expect(verdicts["tcp-capstan"], cells["tcp-capstan"].why).toBe("allowed");
        expect(heard, "our resolver received the unsandboxed app's query").toBe(true);
      }
      if (mode === "gvisor") {
        for (const [id, v] of Object.entries(cells)) expect(v.verdict, `${id}: ${v.why}`).not.toBe("allowed");
      } else {
        // Where the host sees the limit (pids and memory cgroups), the app keeps serving and Capstan says so in words:
        // the pids cgroup refuses the forks (not RLIMIT_NPROC before it), and only the bomb's child is OOM-killed.
        const by = (k: string) => String((c.isolation as any)?.limits?.[k]?.by ?? ""); // eslint-disable-line @typescript-eslint/no-explicit-any
        if (/_pids/.test(by("processes"))) {
          expect((watchedRuns["fork-bomb"]!.result as { status: number }).status, cells["fork-bomb"]!.why).toBe(200);
          expect(said["fork-bomb"], cells["fork-bomb"]!.why).toMatch(/\d+ forks? (was|were) refused/);
        }
        if (/_memory/.test(by("memory_bytes"))) {
          expect((watchedRuns["memory-bomb"]!.result as { status: number }).status, cells["memory-bomb"]!.why).toBe(
            200,
          );
          expect(said["memory-bomb"], cells["memory-bomb"]!.why).toMatch(/killed that process .*kept running/);
        }
      }
      // The isolation report never claims more than the run shows: a limit it reports as enforced stopped its bomb.
      for (const [bombName, words] of [
        ["fork-bomb", ["pids", "process"]],
        ["memory-bomb", ["memory"]],
        ["disk-fill", ["disk"]],
      ] as const) {
        if (reportedLimit(limits, [...words]) !== null)
          expect(verdicts[bombName], `${bombName}: the report names a limit (${cells[bombName]!.why})`).toBe(
            "contained",
          );
      }
      if ((c.isolation as { enforced?: boolean }).enforced === true) {
        for (const [id, v] of Object.entries(cells))
          expect(v.verdict, `${id} under a report that says enforced: ${v.why}`).not.toBe("allowed");
      }
    }, 900_000);
  });
}
