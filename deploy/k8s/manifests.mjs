// Capstan's control plane on Kubernetes as plain manifests (issue #35 item 6):
// the web Deployment, the worker Deployment, the runner DaemonSet on nodes
// labelled for hosted apps, the migration Job, Services, probes on /readyz and
// /healthz, a PodDisruptionBudget, a NetworkPolicy for the runner gateway, and
// the settings that must be equal everywhere from one Secret. Rendered to YAML
// by scripts/render-k8s.mjs; test/k8s-manifests.test.ts validates every object
// against the Kubernetes API schemas (kubernetes-models). No cluster runs in CI.

/** @typedef {{ namespace: string; image: string; webReplicas: number; workerReplicas: number; runnerNodeLabel: string; publicUrl: string; surfaceDomain: string }} TValues */

/** @type {TValues} */
export const DEFAULTS = {
  namespace: "capstan",
  image: "capstan:latest",
  webReplicas: 2,
  workerReplicas: 1,
  runnerNodeLabel: "capstan.dev/runner",
  publicUrl: "https://capstan.example.com",
  surfaceDomain: "srf.example.com",
};

const SECRET = "capstan";
const UID = 10001;

/** The settings equal on every replica (README "Running more than one replica"), from one Secret. */
export function sharedSettings(v) {
  return {
    DATABASE_URL: "postgresql://capstan:CHANGE-ME@postgres:5432/capstan",
    CAPSTAN_MASTER_KEY: "CHANGE-ME (32 random bytes, base64)",
    NEXTAUTH_SECRET: "CHANGE-ME",
    CAPSTAN_PUBLIC_URL: v.publicUrl,
    CAPSTAN_SURFACE_DOMAIN: v.surfaceDomain,
    CAPSTAN_BLOB_S3_BUCKET: "capstan-blobs",
    CAPSTAN_BLOB_S3_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "CHANGE-ME (or use IRSA / workload identity and drop these two)",
    AWS_SECRET_ACCESS_KEY: "CHANGE-ME",
    CAPSTAN_REDIS_URL: "redis://redis:6379",
    CAPSTAN_RUNNER_LEASE_MS: "20000",
    CAPSTAN_RUNNER_HEARTBEAT_MS: "5000",
  };
}

const labels = (role) => ({ "app.kubernetes.io/name": "capstan", "app.kubernetes.io/component": role });
const meta = (v, name, role) => ({ name, namespace: v.namespace, labels: labels(role) });
const env = (vars) => Object.entries(vars).map(([name, value]) => ({ name, value: String(value) }));
const probe = (path, port, period = 5) => ({
  httpGet: { path, port },
  periodSeconds: period,
  timeoutSeconds: 3,
  failureThreshold: 3,
});

function container(v, name, command, vars, ports, probes) {
  return {
    name,
    image: v.image,
    command: ["/usr/bin/tini", "--"],
    args: command,
    envFrom: [{ secretRef: { name: SECRET } }],
    env: env({ CAPSTAN_MIGRATE_ON_START: "0", ...vars }),
    ports: ports.map(([pname, containerPort]) => ({ name: pname, containerPort })),
    ...(probes ? { readinessProbe: probe("/readyz", probes), livenessProbe: probe("/healthz", probes, 10) } : {}),
    securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, runAsUser: UID, runAsGroup: UID },
  };
}

/** @param {Partial<TValues>} [values] */
export function renderManifests(values = {}) {
  const v = { ...DEFAULTS, ...values };
  const podSecurity = { runAsNonRoot: true, runAsUser: UID, runAsGroup: UID, fsGroup: UID };
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: meta(v, SECRET, "config"),
    type: "Opaque",
    stringData: sharedSettings(v),
  };
  const migrate = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: meta(v, "capstan-migrate", "migrate"),
    spec: {
      backoffLimit: 3,
      template: {
        metadata: { labels: labels("migrate") },
        spec: {
          restartPolicy: "OnFailure",
          securityContext: podSecurity,
          containers: [container(v, "migrate", ["node", "dist/cli.mjs", "migrate"], {}, [], null)],
        },
      },
    },
  };
  const web = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta(v, "capstan-web", "web"),
    spec: {
      replicas: v.webReplicas,
      selector: { matchLabels: labels("web") },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: { labels: labels("web") },
        spec: {
          securityContext: podSecurity,
          // The pre-stop delay (readiness 503 first) plus the drain grace, with room.
          terminationGracePeriodSeconds: 40,
          containers: [
            container(
              v,
              "web",
              ["node", "scripts/server.mjs"],
              {
                CAPSTAN_ROLES: "web",
                CAPSTAN_SHUTDOWN_DELAY_MS: "5000",
                CAPSTAN_SHUTDOWN_GRACE_MS: "25000",
                PORT: "3000",
                HOST: "0.0.0.0",
              },
              [["http", 3000]],
              "http",
            ),
          ],
        },
      },
    },
  };
  const worker = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta(v, "capstan-worker", "worker"),
    spec: {
      replicas: v.workerReplicas,
      selector: { matchLabels: labels("worker") },
      template: {
        metadata: { labels: labels("worker") },
        spec: {
          securityContext: podSecurity,
          terminationGracePeriodSeconds: 40,
          containers: [
            container(
              v,
              "worker",
              ["node", "dist/worker.mjs"],
              { CAPSTAN_ROLES: "worker", CAPSTAN_METRICS_LISTEN: "0.0.0.0:9464" },
              [["metrics", 9464]],
              "metrics",
            ),
          ],
        },
      },
    },
  };
  const runnerContainer = container(
    v,
    "runner",
    ["node", "dist/worker.mjs"],
    {
      CAPSTAN_ROLES: "worker,runner",
      CAPSTAN_RUNNER_LISTEN: "0.0.0.0:7400",
      CAPSTAN_METRICS_LISTEN: "0.0.0.0:9464",
      CAPSTAN_RUNNER_DIR: "/var/lib/capstan/runner",
    },
    [
      ["gateway", 7400],
      ["metrics", 9464],
    ],
    "gateway",
  );
  // The gateway endpoint other replicas use: this pod's IP (downward API), expanded by the kubelet.
  runnerContainer.env.unshift({ name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } });
  runnerContainer.env.push({ name: "CAPSTAN_RUNNER_ENDPOINT", value: "http://$(POD_IP):7400" });
  runnerContainer.volumeMounts = [{ name: "runner-dir", mountPath: "/var/lib/capstan/runner" }];
  // bubblewrap and gVisor need user namespaces: no seccomp/AppArmor profile in the way.
  runnerContainer.securityContext = {
    ...runnerContainer.securityContext,
    seccompProfile: { type: "Unconfined" },
    appArmorProfile: { type: "Unconfined" },
  };
  const runner = {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: meta(v, "capstan-runner", "runner"),
    spec: {
      selector: { matchLabels: labels("runner") },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
      template: {
        metadata: { labels: labels("runner") },
        spec: {
          nodeSelector: { [v.runnerNodeLabel]: "true" },
          securityContext: podSecurity,
          terminationGracePeriodSeconds: 40,
          containers: [runnerContainer],
          // Apps survive a pod restart there and are adopted by the next runner pod.
          volumes: [{ name: "runner-dir", hostPath: { path: "/var/lib/capstan/runner", type: "DirectoryOrCreate" } }],
        },
      },
    },
  };
  const webService = {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta(v, "capstan-web", "web"),
    spec: { selector: labels("web"), ports: [{ name: "http", port: 80, targetPort: "http" }] },
  };
  const metricsService = {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta(v, "capstan-metrics", "worker"),
    spec: {
      clusterIP: "None",
      selector: labels("worker"),
      ports: [{ name: "metrics", port: 9464, targetPort: "metrics" }],
    },
  };
  const pdb = {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: meta(v, "capstan-web", "web"),
    spec: { minAvailable: 1, selector: { matchLabels: labels("web") } },
  };
  const gatewayPolicy = {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: meta(v, "capstan-runner-gateway", "runner"),
    spec: {
      podSelector: { matchLabels: labels("runner") },
      policyTypes: ["Ingress"],
      ingress: [
        {
          from: [{ podSelector: { matchLabels: labels("web") } }, { podSelector: { matchLabels: labels("worker") } }],
          ports: [{ port: 7400 }],
        },
      ],
    },
  };
  return [secret, migrate, web, worker, runner, webService, metricsService, pdb, gatewayPolicy];
}
