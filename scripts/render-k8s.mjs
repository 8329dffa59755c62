// `node scripts/render-k8s.mjs [--image capstan:1.2.3] [--namespace capstan] [--public-url https://…]
//   [--surface-domain srf.example.com] [--web-replicas 2] > capstan.yaml`: the Kubernetes manifests of
// deploy/k8s/manifests.mjs as one YAML stream (docs/operations.md "Running more than one replica").
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { renderManifests } from "../deploy/k8s/manifests.mjs";

const { values } = parseArgs({
  options: {
    image: { type: "string" },
    namespace: { type: "string" },
    "public-url": { type: "string" },
    "surface-domain": { type: "string" },
    "web-replicas": { type: "string" },
    "worker-replicas": { type: "string" },
  },
});
const docs = renderManifests({
  ...(values.image ? { image: values.image } : {}),
  ...(values.namespace ? { namespace: values.namespace } : {}),
  ...(values["public-url"] ? { publicUrl: values["public-url"] } : {}),
  ...(values["surface-domain"] ? { surfaceDomain: values["surface-domain"] } : {}),
  ...(values["web-replicas"] ? { webReplicas: Number(values["web-replicas"]) } : {}),
  ...(values["worker-replicas"] ? { workerReplicas: Number(values["worker-replicas"]) } : {}),
});
process.stdout.write(docs.map((d) => stringify(d)).join("---\n"));
