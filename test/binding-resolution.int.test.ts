import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  bindingsInOrder,
  entriesWithoutReadyBinding,
  resetBindingReadCache,
} from "@/server/domain/credentials/binding-reads.service";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import { addAiProvider, bootBridgeApp } from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/**
 * Issue #15 item 6: the Bridge (which picks a binding and falls back along the
 * contract's provider order) and session admission (which asks whether a
 * required capability has a ready binding) resolve a workspace's bindings
 * through ONE function of the bindings service, with one provider order:
 * `prefer` first when allowed, then the allow-list, never outside it; newest
 * first within a provider. Admission's several capabilities are read in one
 * statement when not cached.
 */
let owner: TTestUser;
let provider: TOpenAiServer;

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  provider = await startOpenAiServer(`sk-resolve-${randomBytes(8).toString("hex")}`);
}, 120_000);

const ai = (allow: string[], prefer?: string) => ({
  id: "ai.generate",
  provider: { allow, ...(prefer ? { prefer } : {}) },
});
const email = { id: "email.send", provider: { allow: ["smtp"] } };

describe("one binding resolution for the Bridge and admission", () => {
  it("orders by prefer, then the allow-list; leaves out providers the entry does not allow", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    const acme = await addAiProvider(owner, ws, {
      provider: "acme",
      baseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
    });
    const openai = await addAiProvider(owner, ws, {
      provider: "openai",
      baseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
    });
    const ids = async (e: ReturnType<typeof ai>) => (await bindingsInOrder(ws, e)).map((b) => b.id);
    expect(await ids(ai(["openai", "acme"]))).toEqual([openai.bindingId, acme.bindingId]);
    expect(await ids(ai(["openai", "acme"], "acme"))).toEqual([acme.bindingId, openai.bindingId]);
    // A preference outside the allow-list is ignored; a provider outside it never appears.
    expect(await ids(ai(["openai"], "acme"))).toEqual([openai.bindingId]);
    expect(await ids(ai(["other"]))).toEqual([]);
  });

  it("names the entries without a ready binding, several capabilities at once, cold and cached alike", async () => {
    const ws = (await makeWorkspace(owner.token)).id;
    const { bindingId } = await addAiProvider(owner, ws, {
      provider: "openai",
      baseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
    });
    const entries = [ai(["anthropic", "openai"]), email, ai(["anthropic"])];
    resetBindingReadCache();
    const cold = await entriesWithoutReadyBinding(ws, entries);
    expect(cold).toEqual([email, entries[2]]);
    expect(await entriesWithoutReadyBinding(ws, entries)).toEqual(cold);
    expect(await entriesWithoutReadyBinding(ws, [])).toEqual([]);

    // A revocation through the API is signalled: the next resolution no longer counts the binding as ready.
    const r = await api("DELETE", `/v1/workspaces/${ws}/provider-bindings/${bindingId}`, { token: owner.token });
    expect(r.status, r.text).toBe(204);
    expect(await entriesWithoutReadyBinding(ws, entries)).toEqual(entries);
    // Still there, revoked: the Bridge tells binding_revoked from binding_missing by it.
    expect((await bindingsInOrder(ws, entries[0]!)).map((b) => b.status)).toEqual(["revoked"]);
  });

  it("another workspace's bindings are not resolved", async () => {
    const mine = (await makeWorkspace(owner.token)).id;
    const theirs = (await makeWorkspace(owner.token)).id;
    await addAiProvider(owner, theirs, { provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey });
    expect(await bindingsInOrder(mine, ai(["openai"]))).toEqual([]);
    expect(await entriesWithoutReadyBinding(mine, [ai(["openai"])])).toHaveLength(1);
  });
});
