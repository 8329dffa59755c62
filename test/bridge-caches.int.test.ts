import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { RATE_CARD_TTL_MS, rateCardVersions } from "@/server/domain/billing/rate-card-reads.service";
import { BINDINGS_TTL_MS } from "@/server/domain/credentials/binding-reads.service";
import { issueTokenForEmail } from "@/server/domain/identity/tokens.service";
import { processPendingFreezes } from "@/server/domain/source/freeze.service";
import { CONTRACT_TTL_MS } from "@/server/domain/source/contract-reads.service";
import { REVOCATION_CACHE_MS } from "@/server/domain/service-identities/bridge-token.service";
import { db } from "@/server/platform/db/client";
import { api, makeUser, makeWorkspace, type TTestUser } from "./support/api";
import {
  aiCapability,
  bootBridgeApp,
  bridge,
  bridgeToken,
  kvCapability,
  makeServiceIdentity,
  setupBridge,
  type TCapability,
} from "./support/bridge-fixtures";
import { startOpenAiServer, type TOpenAiServer } from "./support/openai-server";

/**
 * The Bridge's hot-path caches (verified identity, bindings, contracts, rate
 * card versions) never serve a revoked token, a revoked binding, a superseded
 * contract or an outdated price list beyond their documented bound:
 * - a change made through the services is signalled after its commit and
 *   seen by the very next call (this process; other processes: the replicas
 *   test, LISTEN/NOTIFY);
 * - a change the cache was never told about (a lost notification, a row
 *   changed behind its back) is seen once the bound has passed. The clock is
 *   moved past the bound (fake Date only), so nothing here waits or races.
 */
let owner: TTestUser;
let provider: TOpenAiServer;

beforeAll(async () => {
  await bootBridgeApp();
  owner = await makeUser();
  provider = await startOpenAiServer(`sk-caches-${randomBytes(8).toString("hex")}`);
}, 120_000);

afterEach(() => {
  vi.useRealTimers();
});

/** Moves Date (only Date: timers and I/O stay real) `ms` past now. */
function clockForward(ms: number): void {
  const now = Date.now();
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(now + ms);
}

const kvGet = (token: string, key = "/app/x") => bridge(token, "data.kv", "get", { key });
const generate = (token: string) =>
  bridge(token, "ai.generate", "generate", { model_kind: "text", input: { text: "hi" }, max_tokens: 5 });

describe("revoked service identity (token)", () => {
  it("is refused by the next call once revoked through the API", async () => {
    const s = await setupBridge({ owner, capabilities: [kvCapability()] });
    expect((await kvGet(s.token)).status).toBe(200); // the identity is cached now
    const r = await api("DELETE", `/v1/workspaces/${s.ws}/service-identities/${s.svc.id}`, { token: owner.token });
    expect(r.status, r.text).toBe(200);
    const after = await kvGet(s.token);
    expect(after.status, after.text).toBe(401);
  });

  it("unsignalled (the row changed behind the cache), is refused once REVOCATION_CACHE_MS has passed", async () => {
    const s = await setupBridge({ owner, capabilities: [kvCapability()] });
    expect((await kvGet(s.token)).status).toBe(200);
    await db().serviceIdentity.update({ where: { id: s.svc.id }, data: { status: "revoked" } });
    clockForward(REVOCATION_CACHE_MS + 1);
    const after = await kvGet(s.token);
    expect(after.status, after.text).toBe(401);
    expect(after.json.detail).toMatch(/revoked/);
  });
});

describe("revoked binding", () => {
  it("is binding_revoked for the next call once revoked through the API", async () => {
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
    });
    expect((await generate(s.token)).status).toBe(200); // the bindings are cached now
    const r = await api("DELETE", `/v1/workspaces/${s.ws}/provider-bindings/${s.providers.openai!.bindingId}`, {
      token: owner.token,
    });
    expect(r.status, r.text).toBe(204);
    const calls = provider.authorizedCalls();
    const after = await generate(s.token);
    expect(after.status, after.text).toBe(409);
    expect(after.json.reason).toBe("binding_revoked");
    expect(provider.authorizedCalls()).toBe(calls); // the provider was not called
  });

  it("unsignalled, is binding_revoked once BINDINGS_TTL_MS has passed", async () => {
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
    });
    expect((await generate(s.token)).status).toBe(200);
    await db().providerBinding.update({
      where: { id: s.providers.openai!.bindingId },
      data: { status: "revoked", revokedAt: new Date() },
    });
    clockForward(BINDINGS_TTL_MS + 1);
    const after = await generate(s.token);
    expect(after.status, after.text).toBe(409);
    expect(after.json.reason).toBe("binding_revoked");
  });
});

describe("superseded contract", () => {
  /** A product whose repository we commit to again: a new freeze + confirmation supersedes the contract. */
  async function productWithRepo(capabilities: TCapability[]) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "capstan-cache-repo-"));
    const git = (...a: string[]) =>
      execFileSync(
        "git",
        ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...a],
        { cwd: dir },
      );
    const commit = (caps: TCapability[]) => {
      writeFileSync(
        path.join(dir, "package.json"),
        JSON.stringify({ name: "app", scripts: { start: "node server.js" }, engines: { node: "20.x" } }),
      );
      writeFileSync(path.join(dir, "package-lock.json"), "{}");
      writeFileSync(path.join(dir, "server.js"), "console.log(1)\n");
      writeFileSync(path.join(dir, "capabilities.json"), JSON.stringify({ capabilities: caps }));
      git("add", "-A");
      git("commit", "-q", "-m", "caps");
    };
    git("init", "-q");
    commit(capabilities);
    const ws = (await makeWorkspace(owner.token)).id;
    const intake = await api("POST", `/v1/workspaces/${ws}/products`, {
      token: owner.token,
      body: { repo_url: `file://${dir}`, ref: "main", auth: { kind: "none" } },
    });
    expect(intake.status, intake.text).toBe(202);
    const productId = intake.json.product_id as string;
    const confirmFreeze = async (freezeId: string) => {
      let f = { status: "pending", revision: { id: "" } };
      for (let i = 0; i < 30 && f.status === "pending"; i++) {
        await processPendingFreezes(10);
        f = (await api("GET", `/v1/workspaces/${ws}/source-freezes/${freezeId}`, { token: owner.token })).json;
      }
      expect(f.status).toBe("frozen");
      const c = await api(
        "POST",
        `/v1/workspaces/${ws}/products/${productId}/revisions/${f.revision.id}/descriptor:confirm`,
        { token: owner.token, body: {} },
      );
      expect(c.status, c.text).toBe(200);
      return f.revision.id;
    };
    const first = await confirmFreeze(intake.json.source_freeze_id);
    const svc = await makeServiceIdentity(owner, ws, productId);
    const token = await bridgeToken(svc.id, svc.secret);
    const supersede = async (caps: TCapability[]) => {
      commit(caps);
      const again = await api("POST", `/v1/workspaces/${ws}/products/${productId}/source-freezes`, {
        token: owner.token,
        body: { ref: "main" },
      });
      expect(again.status, again.text).toBe(202);
      return confirmFreeze(again.json.source_freeze_id);
    };
    return { ws, productId, first, token, supersede };
  }

  // The newer contract narrows data.kv's prefix (/app -> /app/sub): /app/x is outside it.
  it("is replaced for the next call once a newer revision's contract is confirmed", async () => {
    const p = await productWithRepo([kvCapability({ scope: { prefix: "/app" } })]);
    expect((await kvGet(p.token, "/app/x")).status).toBe(200); // the contract is cached now
    await p.supersede([kvCapability({ scope: { prefix: "/app/sub" } })]);
    const old = await kvGet(p.token, "/app/x");
    expect(old.status, old.text).toBe(403);
    expect(old.json.reason).toBe("outside_contract");
    expect((await kvGet(p.token, "/app/sub/x")).status).toBe(200);
  });

  it("unsignalled, is replaced once CONTRACT_TTL_MS has passed", async () => {
    const p = await productWithRepo([kvCapability({ scope: { prefix: "/app" } })]);
    const second = await p.supersede([kvCapability({ scope: { prefix: "/app/sub" } })]);
    expect(second).not.toBe(p.first);
    expect((await kvGet(p.token, "/app/x")).json.reason).toBe("outside_contract"); // the second contract is cached now
    // Behind the cache's back, the first revision becomes the latest confirmed one again.
    await db().revision.update({
      where: { id: p.first },
      data: { contractConfirmedAt: new Date(Date.now() + 3_600_000) },
    });
    clockForward(CONTRACT_TTL_MS + 1);
    const fresh = await kvGet(p.token, "/app/x");
    expect(fresh.status, fresh.text).toBe(200);
  });
});

describe("rate card versions (pricing an ai.generate call)", () => {
  const CARD = {
    currency: "USD",
    prices: { input_tokens_per_million: 1_000_000, output_tokens_per_million: 1_000_000, per_call: 100 },
  };
  async function pricedSetup() {
    const model = `chat-${randomBytes(4).toString("hex")}`;
    const s = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [
        {
          provider: "openai",
          baseUrl: provider.baseUrl,
          apiKey: provider.apiKey,
          models: ["text"],
          providerModels: { text: model },
        },
      ],
    });
    const platform = await issueTokenForEmail("admin@example.com", 3600);
    const put = async (body: Record<string, unknown>) => {
      const r = await api("PUT", `/v1/platform/rate-cards/openai/${model}`, { token: platform, body });
      expect(r.status, r.text).toBe(200);
      return r.json.id as string;
    };
    const pricedBy = async () => {
      const r = await generate(s.token);
      expect(r.status, r.text).toBe(200);
      const inv = await api("GET", `/v1/workspaces/${s.ws}/capability-invocations/${r.json.capability_invocation_id}`, {
        token: owner.token,
      });
      return (inv.json.charge as { rate_card_version_id: string } | null)?.rate_card_version_id ?? null;
    };
    return { model, put, pricedBy };
  }

  it("a version published through the API prices the next call (the PUT signals after its commit)", async () => {
    const p = await pricedSetup();
    expect(await p.pricedBy()).toBeNull(); // "no card" is cached now
    const v1 = await p.put(CARD);
    expect(await p.pricedBy()).toBe(v1);
    const v2 = await p.put({ ...CARD, prices: { ...CARD.prices, per_call: 200 } });
    expect(await p.pricedBy()).toBe(v2);
  });

  it("unsignalled (a version written behind the cache), prices calls once RATE_CARD_TTL_MS has passed", async () => {
    const p = await pricedSetup();
    const v1 = await p.put(CARD);
    expect(await p.pricedBy()).toBe(v1); // v1's version list is cached now
    const v2 = await db().rateCardVersion.create({
      data: {
        id: `rcv_${randomBytes(10).toString("hex")}`,
        provider: "openai",
        model: p.model,
        currency: "USD",
        inputTokensPerMillion: BigInt(2_000_000),
        outputTokensPerMillion: BigInt(2_000_000),
        perCall: BigInt(0),
        effectiveFrom: new Date(),
        createdBy: "test",
      },
    });
    clockForward(RATE_CARD_TTL_MS + 1);
    expect(await p.pricedBy()).toBe(v2.id);
  });

  it("a version published ahead of its effective_from is in the cached list and prices calls from its start, not before", async () => {
    const p = await pricedSetup();
    const v1 = await p.put(CARD);
    const from = new Date(Date.now() + 120_000);
    const later = await p.put({
      ...CARD,
      effective_from: from.toISOString(),
      prices: { ...CARD.prices, per_call: 300 },
    });
    expect(await p.pricedBy()).toBe(v1); // the list, the future version included, is cached now
    expect((await rateCardVersions("openai", p.model)).map((v) => v.id)).toEqual([v1, later]);
    clockForward(120_000 + 1);
    expect(await p.pricedBy()).toBe(later);
  });
});

describe("workspace isolation of the caches", () => {
  it("a revocation in one workspace leaves another workspace's cached identity, binding and contract alone", async () => {
    const other = await makeUser();
    const a = await setupBridge({
      owner,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
    });
    const b = await setupBridge({
      owner: other,
      capabilities: [aiCapability()],
      providers: [{ provider: "openai", baseUrl: provider.baseUrl, apiKey: provider.apiKey }],
    });
    expect((await generate(a.token)).status).toBe(200);
    expect((await generate(b.token)).status).toBe(200);
    // Workspace A's owner cannot revoke B's binding; revoking A's own does not touch B.
    const cross = await api("DELETE", `/v1/workspaces/${a.ws}/provider-bindings/${b.providers.openai!.bindingId}`, {
      token: owner.token,
    });
    expect(cross.status).toBe(404);
    expect(
      (
        await api("DELETE", `/v1/workspaces/${a.ws}/provider-bindings/${a.providers.openai!.bindingId}`, {
          token: owner.token,
        })
      ).status,
    ).toBe(204);
    expect((await generate(a.token)).json.reason).toBe("binding_revoked");
    const stillB = await generate(b.token);
    expect(stillB.status, stillB.text).toBe(200);
  });
});
