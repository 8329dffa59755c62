import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/platform/db/client";
import { bootApp } from "./support/api";

/**
 * Every list filter is served by a keyset index (#16 item 6, docs/decisions.md
 * "Lists at scale"): for each list operation and filter, an index whose
 * columns are (scope or filter..., created_at, id), so the page is the first
 * n+1 entries of one index range. Then EXPLAIN on 20k seeded audit records
 * shows the planner reading the filter's index for a filter with no match
 * (the case that used to read the whole workspace).
 */
const LISTS: [list: string, table: string, columns: string[]][] = [
  ["audit (no filter, since/until)", "audit_records", ["workspace_id"]],
  ["audit ?action", "audit_records", ["workspace_id", "action"]],
  ["audit ?actor_id", "audit_records", ["workspace_id", "actor_id"]],
  ["audit ?target_id", "audit_records", ["workspace_id", "target_id"]],
  ["audit ?correlation_id", "audit_records", ["workspace_id", "correlation_id"]],
  ["capability invocations", "capability_invocations", ["workspace_id"]],
  ["capability invocations ?product_id", "capability_invocations", ["workspace_id", "product_id"]],
  ["capability invocations ?outcome", "capability_invocations", ["workspace_id", "outcome"]],
  ["capability invocations ?capability", "capability_invocations", ["workspace_id", "capability"]],
  ["capability invocations search ?reason", "capability_invocations", ["workspace_id", "reason"]],
  [
    "capability invocations search ?service_identity_id",
    "capability_invocations",
    ["workspace_id", "service_identity_id"],
  ],
  ["deployments", "deployments", ["workspace_id"]],
  ["deployments ?revision_id", "deployments", ["revision_id"]],
  ["deployments ?release_id", "deployments", ["release_id"]],
  ["deployments ?product_id", "deployments", ["product_id"]],
  ["deployments ?status", "deployments", ["workspace_id", "status"]],
  ["sessions", "sessions", ["workspace_id"]],
  ["sessions ?surface_id", "sessions", ["surface_id"]],
  ["sessions ?state", "sessions", ["workspace_id", "state"]],
  ["session invocations", "invocations", ["session_id"]],
  ["accesses ?surface_id", "accesses", ["surface_id"]],
  ["pending operations ?status", "pending_operations", ["workspace_id", "status"]],
  ["surfaces", "surfaces", ["workspace_id"]],
  ["surfaces ?product_id", "surfaces", ["product_id"]],
  ["surfaces ?deployment_id", "surfaces", ["deployment_id"]],
  ["revisions ?product_id", "revisions", ["product_id"]],
  ["versions ?product_id", "versions", ["product_id"]],
  ["versions ?revision_id", "versions", ["revision_id"]],
  ["releases ?product_id", "releases", ["product_id"]],
  ["releases ?version_id", "releases", ["version_id"]],
  ["releases ?status", "releases", ["workspace_id", "status"]],
  ["evaluations of a revision", "evaluations", ["revision_id"]],
  ["fixes of a revision", "fixes", ["revision_id"]],
  ["domains", "domains", ["workspace_id"]],
  ["domains ?product_id", "domains", ["product_id"]],
  ["managed resources ?product_id", "managed_resources", ["product_id"]],
  ["wallet transactions", "wallet_entries", ["workspace_id"]],
  ["wallet transactions ?kind", "wallet_entries", ["workspace_id", "kind"]],
  ["dead letters", "dead_letters", ["workspace_id"]],
  ["event subscriptions", "event_subscriptions", ["workspace_id"]],
  ["deliveries of a subscription", "webhook_deliveries", ["subscription_id"]],
  ["service identities", "service_identities", ["workspace_id"]],
  ["products", "products", ["workspace_id"]],
  ["credentials", "credentials", ["workspace_id"]],
  ["provider bindings", "provider_bindings", ["workspace_id"]],
  ["payment orders", "payment_orders", ["workspace_id"]],
  ["invoices", "invoices", ["workspace_id"]],
];

let indexes: { table: string; name: string; columns: string[] }[] = [];

beforeAll(async () => {
  await bootApp();
  indexes = await db().$queryRaw<{ table: string; name: string; columns: string[] }[]>`
    SELECT t.relname AS table, i.relname AS name,
           array_agg(a.attname::text ORDER BY k.ord) AS columns
      FROM pg_index ix
      JOIN pg_class t ON t.oid = ix.indrelid
      JOIN pg_class i ON i.oid = ix.indexrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()
      CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
     WHERE ix.indpred IS NULL
     GROUP BY t.relname, i.relname`;
});

describe("list indexes", () => {
  it.each(LISTS)("%s: (%s) has an index (scope, created_at, id)", (_list, table, columns) => {
    const want = [...columns, "created_at", "id"];
    const found = indexes.filter((ix) => ix.table === table && want.every((c, i) => ix.columns[i] === c));
    expect(
      found.map((ix) => ix.name),
      `indexes of ${table}: ${JSON.stringify(indexes.filter((ix) => ix.table === table))}`,
    ).not.toEqual([]);
  });

  it("EXPLAIN: an audit action with no match reads the (workspace_id, action, created_at, id) index, not the workspace", async () => {
    const ws = "ws_0explainlistindexes00000";
    await db().$executeRaw`INSERT INTO workspaces (id, name) VALUES (${ws}, 'explain')`;
    await db().$executeRaw`
      INSERT INTO audit_records (id, workspace_id, seq, action, actor_id, actor_kind, target_id, correlation_id, details, prev_hash, hash, created_at)
      SELECT 'aud_0' || lpad(to_hex(g), 25, '0'), ${ws}, g, 'plan.changed', 'usr_x', 'user', 'ws_x', 'evt_x', '{}'::jsonb, 'p', 'h',
             now() - make_interval(secs => g)
        FROM generate_series(1, 20000) g`;
    await db().$executeRaw`ANALYZE audit_records`;
    const plan = await db().$queryRaw<{ "QUERY PLAN": string }[]>`
      EXPLAIN SELECT * FROM audit_records WHERE workspace_id = ${ws} AND action = 'member.upserted'
       ORDER BY created_at DESC, id DESC LIMIT 51`;
    const text = plan.map((r) => r["QUERY PLAN"]).join("\n");
    expect(text).toContain("audit_records_workspace_id_action_created_at_id_idx");
    expect(text).not.toMatch(/Seq Scan/);
  });

  it("EXPLAIN: the webhook claim walks a subscription's pending deliveries in index order (no sort of the backlog)", async () => {
    // The claim (webhooks/delivery.service.ts) orders by `event_seq NULLS FIRST` and stops after the
    // free in-flight slots; an index in another order makes it read and sort the whole backlog.
    const claim = readFileSync(
      path.join(import.meta.dirname, "../src/server/domain/webhooks/delivery.service.ts"),
      "utf8",
    );
    expect(claim).toContain("ORDER BY d.event_seq NULLS FIRST");
    const text = await db().$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL enable_sort = off`;
      await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
      const plan = await tx.$queryRaw<{ "QUERY PLAN": string }[]>`
        EXPLAIN SELECT id FROM webhook_deliveries WHERE subscription_id = 'whs_x' AND status = 'pending'
         ORDER BY event_seq NULLS FIRST LIMIT 8`;
      return plan.map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(text).toContain("webhook_deliveries_pending_seq_idx");
    expect(text).not.toMatch(/Sort/);
  });

  it("our PostgreSQL sessions run without JIT (short OLTP statements; a stale estimate would compile for ~400 ms)", async () => {
    const [row] = await db().$queryRaw<{ jit: string }[]>`SHOW jit`;
    expect(row?.jit).toBe("off");
  });
});
