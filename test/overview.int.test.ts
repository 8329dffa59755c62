import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser } from "./support/api";

/**
 * The workspace overview and its usage series (issue #21 item 4) over real
 * PostgreSQL through the REST boundary: sums per UTC day × capability and
 * × product, exact integer money per currency, day edges, range validation,
 * and another workspace's data never appearing.
 */
let owner: TTestUser;
let viewer: TTestUser;
let stranger: TTestUser;
let ws: string;
let other: string;
let alpha: string;
let beta: string;

async function product(workspaceId: string, name: string, createdBy: string): Promise<string> {
  const id = newId("prod");
  await db().product.create({
    data: {
      id,
      workspaceId,
      name,
      inputRevisionId: newId("rev"),
      repoUrl: "https://example.test/x.git",
      ref: "main",
      createdBy,
    },
  });
  return id;
}

type TSeed = {
  productId: string;
  capability: string;
  at: string;
  outcome?: string;
  reason?: string;
  units?: number;
  unit?: string;
  micros?: bigint;
  currency?: string;
  createdAt?: string;
};
async function seed(workspaceId: string, calls: TSeed[]): Promise<void> {
  await db().capabilityInvocation.createMany({
    data: calls.map((c) => ({
      id: newId("cap"),
      workspaceId,
      productId: c.productId,
      capability: c.capability,
      action: "call",
      outcome: c.outcome ?? "completed",
      reason: c.reason ?? null,
      usageUnits: c.units ?? 0,
      usageUnit: c.unit ?? "tokens",
      requestSummary: {},
      correlationId: newId("evt"),
      requestedAt: new Date(c.at),
      createdAt: new Date(c.createdAt ?? new Date(Date.parse(c.at) + 2000).toISOString()),
      chargeMicros: c.micros ?? null,
      chargeCurrency: c.micros !== undefined ? (c.currency ?? "USD") : null,
    })),
  });
}

const series = (u: TTestUser, w: string, query: string) =>
  api("GET", `/v1/workspaces/${w}/usage-series?${query}`, { token: u.token });

beforeAll(async () => {
  await bootApp();
  [owner, viewer, stranger] = await Promise.all([makeUser(), makeUser(), makeUser()]);
  ws = (await makeWorkspace(owner.token)).id;
  other = (await makeWorkspace(stranger.token)).id;
  expect(
    (
      await api("PUT", `/v1/workspaces/${ws}/members/${viewer.userId}`, {
        token: owner.token,
        body: { role: "viewer" },
      })
    ).status,
  ).toBe(200);
  alpha = await product(ws, `alpha ${randomBytes(3).toString("hex")}`, owner.userId);
  beta = await product(ws, `beta ${randomBytes(3).toString("hex")}`, owner.userId);
  const theirs = await product(other, "theirs", stranger.userId);
  await seed(ws, [
    // Day 1: two AI calls of alpha (one denied), a KV call of beta.
    { productId: alpha, capability: "ai.generate", at: "2026-03-01T08:00:00.000Z", units: 100, micros: BigInt(1500) },
    {
      productId: alpha,
      capability: "ai.generate",
      at: "2026-03-01T09:00:00.000Z",
      outcome: "denied",
      reason: "budget_exceeded",
    },
    { productId: beta, capability: "data.kv", at: "2026-03-01T10:00:00.000Z", units: 64, unit: "bytes" },
    // Day 2, its last millisecond, written just after midnight: still day 2 (the day it started).
    {
      productId: beta,
      capability: "ai.generate",
      at: "2026-03-02T23:59:59.999Z",
      createdAt: "2026-03-03T00:00:01.000Z",
      units: 50,
      micros: BigInt(2),
      currency: "EUR",
    },
    {
      productId: alpha,
      capability: "ai.generate",
      at: "2026-03-02T12:00:00.000Z",
      outcome: "failed",
      units: 7,
      micros: BigInt(4503599627370495),
    },
    // Outside 2026-03-01..2026-03-02: the instant before and the first instant after.
    { productId: alpha, capability: "ai.generate", at: "2026-02-28T23:59:59.999Z", units: 1000, micros: BigInt(999) },
    { productId: alpha, capability: "ai.generate", at: "2026-03-03T00:00:00.000Z", units: 1000, micros: BigInt(999) },
    // Today: in the 7-day range, denied (shows in the overview's failures).
    {
      productId: alpha,
      capability: "email.send",
      at: new Date().toISOString(),
      outcome: "denied",
      reason: "policy_denied",
      unit: "calls",
    },
  ]);
  await seed(other, [
    {
      productId: theirs,
      capability: "ai.generate",
      at: "2026-03-01T08:00:00.000Z",
      units: 5000,
      micros: BigInt(777777),
    },
    {
      productId: theirs,
      capability: "storage.object",
      at: new Date().toISOString(),
      outcome: "denied",
      reason: "their_reason",
      unit: "bytes",
    },
  ]);
  await db().domain.create({
    data: {
      id: newId("dom"),
      workspaceId: ws,
      productId: alpha,
      environmentType: "production",
      hostname: `shop-${randomBytes(4).toString("hex")}.example.test`,
      apex: false,
      status: "failed",
      verificationToken: "t",
      failureCode: "txt_missing",
      failureMessage: "no TXT record",
      createdBy: owner.userId,
    },
  });
});

describe("usage series", () => {
  it("sums calls, usage and spend per UTC day × capability and × product, exactly, inside since..until", async () => {
    const r = await series(viewer, ws, "since=2026-03-01&until=2026-03-02");
    expect(r.status).toBe(200);
    const s = r.json;
    expect(s).toMatchObject({
      since: "2026-03-01",
      until: "2026-03-02",
      days: ["2026-03-01", "2026-03-02"],
      time_zone: "UTC",
    });
    expect(s.by_capability).toEqual([
      {
        day: "2026-03-01",
        key: "ai.generate",
        calls: 2,
        completed: 1,
        denied: 1,
        failed: 0,
        usage: [{ unit: "tokens", units: 100 }],
        spend: [{ currency: "USD", amount_micros: 1500 }],
      },
      {
        day: "2026-03-01",
        key: "data.kv",
        calls: 1,
        completed: 1,
        denied: 0,
        failed: 0,
        usage: [{ unit: "bytes", units: 64 }],
        spend: [],
      },
      {
        day: "2026-03-02",
        key: "ai.generate",
        calls: 2,
        completed: 1,
        denied: 0,
        failed: 1,
        usage: [{ unit: "tokens", units: 57 }],
        spend: [
          { currency: "EUR", amount_micros: 2 },
          { currency: "USD", amount_micros: 4503599627370495 },
        ],
      },
    ]);
    const [a, b] = [alpha, beta].sort();
    const byProduct = Object.fromEntries(
      s.by_product.map((x: { day: string; key: string }) => [`${x.day} ${x.key}`, x]),
    );
    expect(Object.keys(byProduct).sort()).toEqual(
      [`2026-03-01 ${a}`, `2026-03-01 ${b}`, `2026-03-02 ${a}`, `2026-03-02 ${b}`].sort(),
    );
    expect(byProduct[`2026-03-01 ${alpha}`]).toMatchObject({
      calls: 2,
      spend: [{ currency: "USD", amount_micros: 1500 }],
    });
    expect(byProduct[`2026-03-02 ${beta}`]).toMatchObject({
      calls: 1,
      usage: [{ unit: "tokens", units: 50 }],
      spend: [{ currency: "EUR", amount_micros: 2 }],
    });
    expect(s.products.map((p: { id: string }) => p.id).sort()).toEqual([alpha, beta].sort());
    expect(s.totals).toEqual({
      calls: 5,
      completed: 3,
      denied: 1,
      failed: 1,
      spend: [
        { currency: "EUR", amount_micros: 2 },
        { currency: "USD", amount_micros: 4503599627371995 },
      ],
    });
  });

  it("names the last 7 UTC days by default range and shows today's call", async () => {
    const r = await series(owner, ws, "range=7d");
    expect(r.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(r.json.days).toHaveLength(7);
    expect(r.json.until).toBe(today);
    expect(r.json.by_capability).toContainEqual(
      expect.objectContaining({ day: today, key: "email.send", calls: 1, denied: 1 }),
    );
    expect((await series(owner, ws, "")).json.days).toHaveLength(30);
  });

  it("refuses bad ranges with a 400 problem, as a bad query parameter is on every list", async () => {
    for (const q of [
      "since=2026-03-02",
      "until=2026-03-02",
      "since=2026-03-02&until=2026-03-01",
      "since=2025-01-01&until=2026-01-02",
      "range=7d&since=2026-03-01&until=2026-03-02",
      "range=1y",
      "since=2026-02-30&until=2026-03-01",
      "since=2026-3-1&until=2026-03-02",
    ]) {
      const r = await series(owner, ws, q);
      expect(r.status, q).toBe(400);
      expect(r.headers.get("content-type"), q).toContain("application/problem+json");
    }
  });

  it("never shows another workspace's calls, and refuses a non-member as the other workspace procedures do", async () => {
    const mine = (await series(owner, ws, "since=2026-03-01&until=2026-03-01")).json;
    expect(JSON.stringify(mine)).not.toContain("777777");
    expect(mine.products.map((p: { name: string }) => p.name)).not.toContain("theirs");
    const theirs = (await series(stranger, other, "since=2026-03-01&until=2026-03-01")).json;
    expect(theirs.totals).toEqual({
      calls: 1,
      completed: 1,
      denied: 0,
      failed: 0,
      spend: [{ currency: "USD", amount_micros: 777777 }],
    });
    const refused = await series(stranger, ws, "range=7d");
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.json)).not.toContain("ai.generate");
    expect((await api("GET", `/v1/workspaces/${ws}/usage-series`)).status).toBe(401);
  });
});

describe("overview", () => {
  it("lists the three environments, this month's spend, denied calls by reason and failing domains", async () => {
    const r = await api("GET", `/v1/workspaces/${ws}/overview`, { token: owner.token });
    expect(r.status).toBe(200);
    const o = r.json;
    expect(o.environments.map((e: { environment_type: string }) => e.environment_type)).toEqual([
      "preview",
      "staging",
      "production",
    ]);
    expect(o.spend_this_month.month).toBe(new Date().toISOString().slice(0, 7));
    expect(o.failures.denied).toEqual([{ reason: "policy_denied", count: 1, last_at: expect.any(String) }]);
    expect(o.failures.domains).toEqual([
      expect.objectContaining({ failure_code: "txt_missing", failure_message: "no TXT record" }),
    ]);
    expect(o.failures.dead_letters).toEqual({ count: 0, latest: [] });
  });

  it("hides dead letters below admin and refuses a non-member; another workspace's failures never appear", async () => {
    const v = await api("GET", `/v1/workspaces/${ws}/overview`, { token: viewer.token });
    expect(v.status).toBe(200);
    expect(v.json.failures.dead_letters).toBeNull();
    expect(JSON.stringify(v.json)).not.toContain("their_reason");
    expect((await api("GET", `/v1/workspaces/${ws}/overview`, { token: stranger.token })).status).toBe(403);
    const theirs = await api("GET", `/v1/workspaces/${other}/overview`, { token: stranger.token });
    expect(theirs.json.failures.denied).toEqual([{ reason: "their_reason", count: 1, last_at: expect.any(String) }]);
    expect(theirs.json.failures.domains).toEqual([]);
  });
});
