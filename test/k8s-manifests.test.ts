import { readFileSync } from "node:fs";
import path from "node:path";
import { DaemonSet } from "kubernetes-models/apps/v1/DaemonSet";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Job } from "kubernetes-models/batch/v1/Job";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { execFileSync } from "node:child_process";
import { renderManifests } from "../deploy/k8s/manifests.mjs";
import { checkNodeCommand, knownCapstanVariables } from "./support/deploy-check";

/**
 * The Kubernetes manifests (deploy/k8s/manifests.mjs, rendered by
 * scripts/render-k8s.mjs) validated against the Kubernetes API schemas
 * (kubernetes-models) and checked for wiring: probes on /readyz and /healthz
 * of a declared port, commands that exist, settings Capstan reads, every
 * shared setting from the one Secret, selectors that match their pods. No
 * cluster runs in CI.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type TObj = Record<string, any>;
const MODELS: Record<string, new (o: TObj) => { validate(): void }> = {
  Secret,
  Job,
  Deployment,
  DaemonSet,
  Service,
  PodDisruptionBudget,
  NetworkPolicy,
};
const FOREIGN = /^(AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY)|POD_IP)$/;

describe("Kubernetes manifests", () => {
  const rendered = execFileSync(
    process.execPath,
    [path.join(ROOT, "scripts/render-k8s.mjs"), "--image", "registry.example.com/capstan:1.2.3"],
    { cwd: ROOT, encoding: "utf8" },
  );
  const docs = parseAllDocuments(rendered).map((d) => d.toJS() as TObj);
  const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
  const workloads = docs.filter((d) => ["Deployment", "DaemonSet", "Job"].includes(d.kind));

  it("render and validate against the Kubernetes API schemas", () => {
    expect(docs.map((d) => d.kind).sort()).toEqual([
      "DaemonSet",
      "Deployment",
      "Deployment",
      "Job",
      "NetworkPolicy",
      "PodDisruptionBudget",
      "Secret",
      "Service",
      "Service",
    ]);
    for (const d of docs) {
      const Model = MODELS[d.kind as string]!;
      expect(() => new Model(d).validate(), `${d.kind} ${d.metadata.name}`).not.toThrow();
    }
    // The validation can fail: a misspelt field and a wrong type are refused.
    const web = structuredClone(byKind("Deployment")[0]!);
    web.spec.replicas = "two";
    expect(() => new Deployment(web).validate()).toThrow();
    const badService: TObj = { ...byKind("Service")[0]!, spec: { ports: [{ port: "eighty" }] } };
    expect(() => new Service(badService).validate()).toThrow();
  });

  it("web and worker Deployments, the runner DaemonSet on labelled nodes and the migration Job run the documented commands", () => {
    const names = Object.fromEntries(workloads.map((w) => [w.metadata.name, w]));
    const c = (name: string) => names[name].spec.template.spec.containers[0];
    expect(c("capstan-web").args).toEqual(["node", "scripts/server.mjs"]);
    expect(c("capstan-worker").args).toEqual(["node", "dist/worker.mjs"]);
    expect(c("capstan-runner").args).toEqual(["node", "dist/worker.mjs"]);
    expect(c("capstan-migrate").args).toEqual(["node", "dist/cli.mjs", "migrate"]);
    expect(names["capstan-runner"].kind).toBe("DaemonSet");
    expect(names["capstan-runner"].spec.template.spec.nodeSelector).toEqual({ "capstan.dev/runner": "true" });
    for (const w of workloads) {
      const ctr = w.spec.template.spec.containers[0];
      expect(ctr.image).toBe("registry.example.com/capstan:1.2.3");
      expect(ctr.command).toEqual(["/usr/bin/tini", "--"]);
      expect(checkNodeCommand(ctr.args), w.metadata.name).toEqual([]);
      expect(w.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      const env = Object.fromEntries((ctr.env as TObj[]).map((e) => [e.name, e.value]));
      expect(
        env.CAPSTAN_MIGRATE_ON_START,
        `${w.metadata.name}: only the Job migrates (and it migrates regardless)`,
      ).toBe("0");
    }
    const roles = (n: string) => (c(n).env as TObj[]).find((e) => e.name === "CAPSTAN_ROLES")?.value;
    expect([roles("capstan-web"), roles("capstan-worker"), roles("capstan-runner")]).toEqual([
      "web",
      "worker",
      "worker,runner",
    ]);
  });

  it("probes are /readyz and /healthz on a port the container declares", () => {
    for (const w of workloads.filter((x) => x.kind !== "Job")) {
      const ctr = w.spec.template.spec.containers[0];
      const ports = (ctr.ports as TObj[]).map((p) => p.name);
      expect(ctr.readinessProbe.httpGet.path, w.metadata.name).toBe("/readyz");
      expect(ctr.livenessProbe.httpGet.path, w.metadata.name).toBe("/healthz");
      expect(ports).toContain(ctr.readinessProbe.httpGet.port);
      const env = Object.fromEntries((ctr.env as TObj[]).map((e) => [e.name, e.value]));
      const listen =
        ctr.readinessProbe.httpGet.port === "http"
          ? `0.0.0.0:${env.PORT}`
          : ctr.readinessProbe.httpGet.port === "metrics"
            ? env.CAPSTAN_METRICS_LISTEN
            : env.CAPSTAN_RUNNER_LISTEN;
      const port = (ctr.ports as TObj[]).find((p) => p.name === ctr.readinessProbe.httpGet.port)!.containerPort;
      expect(listen, `${w.metadata.name} listens where its probe knocks`).toBe(`0.0.0.0:${port}`);
    }
  });

  it("every setting is one Capstan reads; the shared ones come from the one Secret; selectors match their pods", () => {
    const known = knownCapstanVariables();
    const [secret] = byKind("Secret");
    const shared = Object.keys(secret!.stringData as TObj);
    for (const must of [
      "DATABASE_URL",
      "CAPSTAN_MASTER_KEY",
      "NEXTAUTH_SECRET",
      "CAPSTAN_PUBLIC_URL",
      "CAPSTAN_SURFACE_DOMAIN",
      "CAPSTAN_BLOB_S3_BUCKET",
      "CAPSTAN_RUNNER_LEASE_MS",
    ])
      expect(shared).toContain(must);
    const named = new Set(shared);
    for (const w of workloads) {
      const ctr = w.spec.template.spec.containers[0];
      expect(ctr.envFrom).toEqual([{ secretRef: { name: secret!.metadata.name } }]);
      for (const e of ctr.env as TObj[]) named.add(e.name);
    }
    expect([...named].filter((n) => !known.has(n) && !FOREIGN.test(n))).toEqual([]);
    const pods = workloads.map((w) => w.spec.template.metadata.labels as TObj);
    const matches = (sel: TObj) => pods.some((l) => Object.entries(sel).every(([k, v]) => l[k] === v));
    for (const s of byKind("Service")) expect(matches(s.spec.selector), s.metadata.name).toBe(true);
    expect(matches(byKind("PodDisruptionBudget")[0]!.spec.selector.matchLabels)).toBe(true);
    for (const w of workloads.filter((x) => x.kind !== "Job"))
      expect(w.spec.selector.matchLabels).toEqual(w.spec.template.metadata.labels);
  });

  it("docs/operations.md says no cluster runs in CI", () => {
    expect(readFileSync(path.join(ROOT, "docs/operations.md"), "utf8")).toMatch(/no Kubernetes cluster\s+runs in CI/i);
  });

  it("renderManifests takes values", () => {
    const docs2 = renderManifests({ namespace: "ops", webReplicas: 3 });
    expect(docs2.every((d: TObj) => d.metadata.namespace === "ops")).toBe(true);
    expect(docs2.find((d: TObj) => d.kind === "Deployment" && d.metadata.name === "capstan-web")!.spec.replicas).toBe(
      3,
    );
  });
});
