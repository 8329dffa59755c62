// docs/api.md's "Calling Capstan from a script" example, verbatim (test/client-script.int.test.ts runs it).
import { createCapstanClient, must } from "@capstan/client";

const capstan = createCapstanClient({ baseUrl: process.env.CAPSTAN_URL!, token: process.env.CAPSTAN_TOKEN! });

const ws = await must(capstan.POST("/v1/workspaces", { body: { name: "nightly reports" } }));
const plan = await must(capstan.GET("/v1/workspaces/{ws}/plan", { params: { path: { ws: ws.id } } }));
console.log(`created ${ws.id} on the ${plan.plan} plan`);

const { items } = await must(capstan.GET("/v1/workspaces", { params: { query: { limit: 50 } } }));
for (const w of items) console.log(w.id, w.name, w.role);
