import { randomBytes } from "node:crypto";
import { db } from "@/server/platform/db/client";
import { newId } from "@/server/platform/ids";
import { returnLeases } from "@/server/domain/usage/leases.service";
import { api, makeUser, makeWorkspace, type TTestUser } from "./api";
import { addAiProvider, bridge, bridgeToken, kvCapability, makeServiceIdentity } from "./bridge-fixtures";
import { confirmedApp, deploy, HEALTH_EDIT, must } from "./deploy-fixtures";
import { evaluate } from "./release-fixtures";
import { resetEnvCache } from "@/server/platform/env";
import { startSmtpSink } from "./smtp-sink";

/**
 * One workspace holding a real row of every resource type the API names in
 * a path: built through the REST API, the workers and the real local runner
 * wherever a request can make it; a dead letter (which needs a receiver to
 * fail for hours) is the one row written directly, linked to B's real event.
 * Used by test/cross-workspace.int.test.ts as the victim workspace.
 */
export type TTenantFixture = {
  owner: TTestUser;
  viewer: TTestUser;
  ws: string;
  /** Path-parameter name (as in /v1/openapi.json) -> the id of a real resource of this workspace. */
  ids: Record<string, string>;
  /** The fix's own product and revision (a second product whose revision has a finding). */
  fixPath: { prod: string; rev: string };
  /** The Bridge token of the workspace's service identity and the kv key/value it wrote. */
  bridgeToken: string;
  kv: { key: string; value: string };
};

export async function seedTenant(): Promise<TTenantFixture> {
  const [owner, viewer] = await Promise.all([makeUser(), makeUser()]);
  const ws = (await makeWorkspace(owner.token, "victim")).id;
  must(
    await api("PUT", `/v1/workspaces/${ws}/members/${viewer.userId}`, { token: owner.token, body: { role: "viewer" } }),
    200,
    "viewer",
  );
  const post = (p: string, body: unknown, token = owner.token, status = 201) =>
    api("POST", `/v1/workspaces/${ws}${p}`, { token, body }).then((r) => must(r, status, `POST ${p}`));

  // Product, freeze, revision, contract; an evaluation (deployment, session, invocations) and its version; a release.
  const app = await confirmedApp(owner, ws, { capabilities: [kvCapability()] }, HEALTH_EDIT);
  const freeze = await db().sourceFreeze.findFirstOrThrow({ where: { workspaceId: ws, productId: app.productId } });
  const evaluation = await evaluate(owner, ws, app.revisionId);
  if (evaluation.status !== "passed" || !evaluation.version_id)
    throw new Error(`evaluation: ${JSON.stringify(evaluation)}`);
  const now = Date.now();
  const release = await post("/releases", {
    product_id: app.productId,
    version_id: evaluation.version_id,
    channel: "staged",
    audience: { kind: "workspace" },
    window: { starts_at: new Date(now - 1000).toISOString(), ends_at: new Date(now + 3_600_000).toISOString() },
  });

  // A live deployment: its surface, an access, a session with an invocation and a pending operation.
  const dep = await deploy(owner, ws, app.revisionId);
  if (dep.status !== "active" || !dep.surface_id || !dep.pipeline_run_id)
    throw new Error(`deployment: ${JSON.stringify(dep)}`);
  const access = must(
    await api("POST", `/v1/surfaces/${dep.surface_id}/access`, { token: owner.token, body: {} }),
    200,
    "access",
  );
  const session = must(
    await api("POST", "/v1/sessions", { token: viewer.token, body: { surface_id: dep.surface_id } }),
    201,
    "session",
  );
  const invoke = (body: Record<string, unknown>) =>
    api("POST", `/v1/sessions/${session.id}/invocations`, {
      token: viewer.token,
      body: { kind: "http_request", body_evidence: null, ...body },
    });
  const invocation = must(await invoke({ method: "GET", path: "/hello" }), 201, "invocation");
  const waiting = must(await invoke({ method: "DELETE", path: "/echo" }), 201, "pending invocation");
  const pend: string | undefined = waiting.admission?.pending_operation_id;
  if (!pend) throw new Error(`no pending operation: ${JSON.stringify(waiting)}`);

  // A second product whose revision has a finding, and a proposed fix for it.
  const broken = await confirmedApp(owner, ws, { scripts: { start: undefined as unknown as string } }, HEALTH_EDIT);
  const fix = await post(`/products/${broken.productId}/revisions/${broken.revisionId}/fixes`, {
    finding_code: "no_start_command",
  });

  // Service identity and a Bridge call (a capability invocation record and a kv entry).
  const svc = await makeServiceIdentity(owner, ws, app.productId);
  const token = await bridgeToken(svc.id, svc.secret);
  const kv = { key: "/app/secret", value: `victim-${randomBytes(6).toString("hex")}` };
  const set = await bridge(token, "data.kv", "set", { key: kv.key, value: kv.value });
  if (set.status !== 200) throw new Error(`kv set: ${set.status} ${set.text}`);
  const cap = await db().capabilityInvocation.findFirstOrThrow({
    where: { workspaceId: ws },
    orderBy: { createdAt: "desc" },
  });
  // The call drew from a budget lease, which goes back within LEASE_IDLE_MS (its budget and lease rows change):
  // settle it now, so the victim's rows only change when a test changes them.
  await returnLeases();

  // Credential and binding (a provider that is never called), webhook subscription, domain, managed resource, order.
  const provider = await addAiProvider(owner, ws, {
    provider: "openai",
    baseUrl: "http://127.0.0.1:9/v1",
    apiKey: `sk-victim-${randomBytes(8).toString("hex")}`,
  });
  const sub = await post("/event-subscriptions", {
    url: "https://hooks.example.com/victim",
    event_types: ["domain.changed"],
    description: "victim",
  });
  const domain = await post("/domains", {
    product_id: app.productId,
    environment_type: "production",
    hostname: `app.victim-${randomBytes(4).toString("hex")}.example.com`,
  });
  const mres = await post("/managed-resources", { kind: "postgres", name: "victim-db" });
  // Deploy on push: the product's hook (its secret is shown once, here, and not kept).
  await post(`/products/${app.productId}/push-hook`, {});
  // A backup of it and a restore (rows only: the resource is never provisioned here).
  const bak = await db().managedResourceBackup.create({
    data: {
      id: newId("bak"),
      workspaceId: ws,
      resourceId: mres.id,
      trigger: "on_demand",
      status: "completed",
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  });
  const rst = await db().managedResourceRestore.create({
    data: {
      id: newId("rst"),
      workspaceId: ws,
      backupId: bak.id,
      sourceResourceId: mres.id,
      targetResourceId: mres.id,
      mode: "in_place",
      status: "failed",
      failureMessage: "victim",
      createdBy: owner.userId,
    },
  });
  const order = await post("/wallet/checkout", { amount_minor: 500, currency: "USD" });
  // An open invoice (a row: closing a month takes a test clock).
  const ivc = await db().invoice.create({
    data: {
      id: newId("ivc"),
      workspaceId: ws,
      month: "2026-01",
      currency: "USD",
      lines: [],
      usageMicros: BigInt(0),
      grantedMicros: BigInt(0),
      subscriptionMinor: BigInt(500),
      totalMinor: BigInt(500),
      issuedAt: new Date(),
      status: "open",
      number: `VIC-${randomBytes(5).toString("hex")}`,
      issuer: "VIC",
      amountDueMinor: BigInt(500),
      dueAt: new Date(Date.now() + 14 * 86_400_000),
      finalizedAt: new Date(),
    },
  });
  // A saved card and a card setup (rows: saving one takes Stripe; the card stays at the gateway, only its reference is kept).
  const pmt = await db().paymentMethod.create({
    data: {
      id: newId("pmt"),
      workspaceId: ws,
      gateway: "stripe",
      gatewayReference: `pm_victim_${randomBytes(6).toString("hex")}`,
      brand: "visa",
      last4: "4242",
      expMonth: 12,
      expYear: 2030,
      createdBy: owner.userId,
    },
  });
  const pms = await db().paymentMethodSetup.create({
    data: {
      id: newId("pms"),
      workspaceId: ws,
      gatewayReference: `cs_victim_${randomBytes(6).toString("hex")}`,
      url: "https://checkout.stripe.test/c/setup/victim",
      createdBy: owner.userId,
    },
  });
  // A pending invitation, mailed through a loopback SMTP server (kept for the file: resends are part of the sweep).
  const mail = await startSmtpSink();
  process.env.CAPSTAN_SMTP_URL = mail.url;
  resetEnvCache();
  const invitation = await post("/invitations", {
    email: `invitee-${randomBytes(4).toString("hex")}@example.test`,
    role: "viewer",
  });

  // A dead letter of one of B's real events (reaching one takes a receiver failing for hours).
  const event = await db().outboxEvent.findFirstOrThrow({ where: { workspaceId: ws }, orderBy: { createdAt: "asc" } });
  const deliveryId = newId("whk");
  await db().webhookDelivery.create({
    data: {
      id: deliveryId,
      workspaceId: ws,
      subscriptionId: sub.id,
      eventId: event.id,
      status: "dead",
      attemptCount: 8,
      nextAttemptAt: new Date(),
      lastStatusCode: 500,
    },
  });
  const dlq = await db().deadLetter.create({
    data: {
      id: newId("dlq"),
      workspaceId: ws,
      deliveryId,
      subscriptionId: sub.id,
      eventId: event.id,
      eventType: event.type,
      attempts: 8,
      lastStatusCode: 500,
    },
  });

  const audit = await db().auditRecord.findFirstOrThrow({ where: { workspaceId: ws }, orderBy: { seq: "asc" } });
  const blob = await db().workspaceBlob.findFirstOrThrow({ where: { workspaceId: ws } });

  return {
    owner,
    viewer,
    ws,
    ids: {
      prod: app.productId,
      rev: app.revisionId,
      revision_id: app.revisionId,
      frz: freeze.id,
      qual: evaluation.id,
      ver: evaluation.version_id,
      rel: release.id,
      fix: fix.id,
      dep: dep.id,
      pipe: dep.pipeline_run_id,
      srf: dep.surface_id,
      acc: access.id,
      ses: session.id,
      inv: invocation.id,
      pend,
      svc: svc.id,
      cap: cap.id,
      cred: provider.credentialId,
      bind: provider.bindingId,
      wb: sub.id,
      dlq: dlq.id,
      dom: domain.id,
      mres: mres.id,
      bak: bak.id,
      rst: rst.id,
      pay: order.id,
      ivc: ivc.id,
      pmt: pmt.id,
      pms: pms.id,
      aud: audit.id,
      evt: event.correlationId,
      sha256: blob.sha256,
      invt: invitation.id,
    },
    fixPath: { prod: broken.productId, rev: broken.revisionId },
    bridgeToken: token,
    kv,
  };
}
