import { beforeAll, describe, expect, it } from "vitest";
import { validateEventData } from "@/server/domain/events/event-schemas";
import { blobStore } from "@/server/platform/blob-store";
import { sha256Hex } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { api } from "./support/api";
import { bootBridgeApp, bridge, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";

/** storage.object on the platform blob store, through the Bridge. */
const storageCapability = (allow = ["platform"]) => ({
  id: "storage.object" as const,
  required: true,
  actions: ["read", "write", "delete", "list"],
  scope: { prefix: "/files", max_object_bytes: 100 },
  credential_owner: "workspace" as const,
  provider: { allow, fallback: "none" as const },
});

let s: TBridgeSetup;

beforeAll(async () => {
  await bootBridgeApp();
  s = await setupBridge({ capabilities: [storageCapability()] });
});

describe("storage.object (platform blob store)", () => {
  it("writes, reads, lists and deletes objects, counting bytes against the storage budget", async () => {
    const content = Buffer.from("hello, storage\n");
    const w = await bridge(s.token, "storage.object", "write", {
      key: "/files/a.txt",
      content_base64: content.toString("base64"),
      content_type: "text/plain",
    });
    expect(w.status, w.text).toBe(200);
    expect(w.json).toMatchObject({
      outcome: "completed",
      provider: "platform",
      usage: { units: content.length, unit: "bytes" },
    });
    expect(w.json.output).toEqual({ key: "/files/a.txt", size_bytes: content.length, sha256: sha256Hex(content) });
    expect(Buffer.compare((await blobStore().get(sha256Hex(content)))!, content)).toBe(0);

    const r = await bridge(s.token, "storage.object", "read", { key: "/files/a.txt" });
    expect(r.json.output).toMatchObject({
      found: true,
      content_base64: content.toString("base64"),
      content_type: "text/plain",
    });
    await bridge(s.token, "storage.object", "write", {
      key: "/files/b.txt",
      content_base64: Buffer.from("b").toString("base64"),
    });
    const page1 = await bridge(s.token, "storage.object", "list", { prefix: "/files/", limit: 1 });
    expect(page1.json.output.objects.map((o: { key: string }) => o.key)).toEqual(["/files/a.txt"]);
    const page2 = await bridge(s.token, "storage.object", "list", {
      prefix: "/files/",
      limit: 1,
      cursor: page1.json.output.next_cursor,
    });
    expect(page2.json.output.objects.map((o: { key: string }) => o.key)).toEqual(["/files/b.txt"]);
    expect(page2.json.output.next_cursor).toBeNull();

    const d = await bridge(s.token, "storage.object", "delete", { key: "/files/a.txt" });
    expect(d.json.output).toEqual({ key: "/files/a.txt", deleted: true });
    expect((await bridge(s.token, "storage.object", "read", { key: "/files/a.txt" })).json.output.found).toBe(false);

    const budgets = await api("GET", `/v1/workspaces/${s.ws}/budgets`, { token: s.owner.token });
    const storage = budgets.json.items.find((b: { usage_category: string }) => b.usage_category === "storage");
    // Writes are charged (what is stored); reads report their bytes but do not spend the storage budget.
    expect(storage.used_units).toBe(content.length + 1);
    const events = await db().outboxEvent.findMany({ where: { subject: w.json.capability_invocation_id } });
    for (const e of events) expect(validateEventData(e.type, e.data)).toEqual([]);
    const requested = events.find((e) => e.type === "capability.invocation_requested")!.data as { request: unknown };
    expect(requested.request).toEqual({
      id: "storage.object",
      action: "write",
      key: "/files/a.txt",
      bytes: content.length,
    });
  });

  it("keeps objects within the contract's prefix and size, and refuses bad bodies", async () => {
    const outside = await bridge(s.token, "storage.object", "write", { key: "/other/x", content_base64: "eA==" });
    expect(outside.status).toBe(403);
    expect(outside.json.reason).toBe("outside_contract");
    const big = await bridge(s.token, "storage.object", "write", {
      key: "/files/big",
      content_base64: Buffer.alloc(101).toString("base64"),
    });
    expect(big.status).toBe(403);
    expect((await bridge(s.token, "storage.object", "read", { key: "/files/big" })).json.output.found).toBe(false);
    expect(
      (await bridge(s.token, "storage.object", "write", { key: "/files/x", content_base64: "not base64!" })).status,
    ).toBe(422);
    expect((await bridge(s.token, "storage.object", "read", { key: "/files/../etc" })).status).toBe(422);
  });

  it("answers binding_missing when the contract does not allow the platform store and no S3 binding exists (see bridge-s3)", async () => {
    const other = await setupBridge({ capabilities: [storageCapability(["s3"])] });
    const r = await bridge(other.token, "storage.object", "read", { key: "/files/a" });
    expect(r.status).toBe(409);
    expect(r.json.reason).toBe("binding_missing");
  });

  it("keeps products apart: another product's identity cannot read these objects", async () => {
    const other = await setupBridge({ capabilities: [storageCapability()], owner: s.owner, ws: s.ws });
    await bridge(s.token, "storage.object", "write", { key: "/files/mine", content_base64: "bWluZQ==" });
    const r = await bridge(other.token, "storage.object", "read", { key: "/files/mine" });
    expect(r.json.output.found).toBe(false);
  });
});
