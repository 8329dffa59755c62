import { beforeAll, it } from "vitest";
import { api, bootApp, makeUser, makeWorkspace } from "./support/api";

beforeAll(async () => { await bootApp(); });

it("probe", async () => {
  const a = await makeUser();
  const b = await makeUser();
  const ws = await makeWorkspace(a.token, "probe");
  const show = (l: string, r: any) => console.log(l, r.status, JSON.stringify(Object.fromEntries(r.headers)), r.text.slice(0, 400));
  show("nope", await api("GET", "/v1/nope", { token: a.token }));
  show("noauth", await api("GET", "/v1/workspaces"));
  show("plan put", await api("PUT", `/v1/workspaces/${ws.id}/plan`, { token: a.token, body: { plan: "team" } }));
  show("budget 10", await api("PUT", `/v1/workspaces/${ws.id}/budgets/ai_tokens`, { token: a.token, body: { limit_units: "10" } }));
  show("budget true", await api("PUT", `/v1/workspaces/${ws.id}/budgets/ai_tokens`, { token: a.token, body: { limit_units: true } }));
  show("budget empty", await api("PUT", `/v1/workspaces/${ws.id}/budgets/ai_tokens`, { token: a.token, body: { limit_units: "" } }));
  show("budget {}", await api("PUT", `/v1/workspaces/${ws.id}/budgets/ai_tokens`, { token: a.token, body: {} }));
  show("budget bananas", await api("PUT", `/v1/workspaces/${ws.id}/budgets/bananas`, { token: a.token, body: { limit_units: 5 } }));
  show("member put", await api("PUT", `/v1/workspaces/${ws.id}/members/${b.userId}`, { token: a.token, body: { role: "developer" } }));
  show("member bad", await api("PUT", `/v1/workspaces/${ws.id}/members/usr_bad`, { token: a.token, body: { role: "developer" } }));
  show("B plan invalid", await api("PUT", `/v1/workspaces/${ws.id}/plan`, { token: (await makeUser()).token, body: { plan: "gold" } }));
  show("name5", await api("POST", `/v1/workspaces`, { token: a.token, body: { name: 5 } }));
  show("text", await api("POST", `/v1/workspaces`, { token: a.token, rawBody: "hello" }));
  show("big", await api("POST", `/v1/workspaces`, { token: a.token, body: { name: "x".repeat(1100000) } }));
  show("plan extra", await api("PUT", `/v1/workspaces/${ws.id}/plan`, { token: a.token, body: { plan: "team", extra: 1 } }));
  show("plan ws", await api("PUT", `/v1/workspaces/${ws.id}/plan`, { token: a.token, body: { plan: "team", ws: "ws_platform" } }));
  show("ws extra", await api("POST", `/v1/workspaces`, { token: a.token, body: { name: "x", extra: 1 } }));
  show("corr bad", await api("GET", `/v1/workspaces`, { token: a.token, headers: {"x-correlation-id": "x".repeat(65)} }));
  show("corr empty", await api("GET", `/v1/workspaces`, { token: a.token, headers: {"x-correlation-id": ""} }));
  show("get ws", await api("GET", `/v1/workspaces/${ws.id}`, { token: a.token }));
  show("budgets", await api("GET", `/v1/workspaces/${ws.id}/budgets`, { token: a.token }));
});
