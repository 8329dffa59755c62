import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { currentKekId, resetKeyCache, sealedKekId, unseal } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { resetEnvCache } from "@/server/platform/env";
import { signToken, verifyToken } from "@/server/domain/signing-keys/jwt.service";
import { api, bootApp, makeUser, makeWorkspace } from "./support/api";

/**
 * Master key rotation end to end: `npx capstan reencrypt-secrets` (the real
 * CLI, in its own process, on this test's database) re-seals credential
 * secrets, webhook signing secrets and signing keys under the new key, after
 * which the old key can be dropped and everything still works.
 */
const ROOT = path.resolve(import.meta.dirname, "..");

function use(current: string, previous: string): void {
  process.env.CAPSTAN_MASTER_KEY = current;
  process.env.CAPSTAN_PREVIOUS_MASTER_KEYS = previous;
  resetEnvCache();
  resetKeyCache();
}

beforeAll(async () => {
  process.env.CAPSTAN_WEBHOOK_ALLOW_PRIVATE = "1";
  resetEnvCache();
  await bootApp();
});

describe("reencrypt-secrets", () => {
  it("re-seals credentials, webhook secrets and signing keys; the old key can then go", async () => {
    const owner = await makeUser();
    const ws = (await makeWorkspace(owner.token)).id;
    const sub = await api("POST", `/v1/workspaces/${ws}/event-subscriptions`, {
      token: owner.token,
      body: { url: "http://127.0.0.1:9/hook", event_types: ["capability.invocation_resulted"] },
    });
    expect(sub.status, sub.text).toBe(201);
    const cred = await api("POST", `/v1/workspaces/${ws}/credentials`, {
      token: owner.token,
      body: {
        secret: "rotate-all-the-things",
        provider: "openai",
        capability: "ai.generate",
        actions: ["generate"],
        scope: [],
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
      },
    });
    expect(cred.status, cred.text).toBe(201);

    const oldKey = process.env.CAPSTAN_MASTER_KEY!;
    const oldKek = currentKekId();
    const newKey = randomBytes(32).toString("base64");
    const cli = spawnSync(process.execPath, [path.join(ROOT, "bin/capstan.mjs"), "reencrypt-secrets"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
      env: {
        ...process.env,
        CAPSTAN_MASTER_KEY: newKey,
        CAPSTAN_PREVIOUS_MASTER_KEYS: oldKey,
        CAPSTAN_MIGRATE_ON_START: "0",
      },
    });
    expect(cli.status, cli.stderr + cli.stdout).toBe(0);
    expect(cli.stdout).toMatch(/re-sealed \d+ credential secret\(s\)/);
    expect(cli.stdout).toMatch(/re-sealed [1-9]\d* webhook secret\(s\)/);
    expect(cli.stdout).toMatch(/re-sealed [1-9]\d* signing key\(s\)/);
    expect(cli.stdout + cli.stderr).not.toContain("rotate-all-the-things");

    try {
      use(newKey, ""); // the old key is gone
      const newKek = currentKekId();
      expect(newKek).not.toBe(oldKek);
      const subRow = await db().eventSubscription.findUniqueOrThrow({
        where: { id: sub.json.id },
        omit: { secretSealed: false },
      });
      expect(sealedKekId(subRow.secretSealed)).toBe(newKek);
      expect(unseal(subRow.secretSealed, `webhook:${sub.json.id}`)).toBe(sub.json.secret);
      for (const k of await db().signingKey.findMany({ omit: { privateJwkSealed: false } })) {
        expect(k.kekId).toBe(newKek);
        expect(sealedKekId(k.privateJwkSealed)).toBe(newKek);
      }
      const credRow = await db().credential.findUniqueOrThrow({
        where: { id: cred.json.id },
        omit: { secretSealed: false },
      });
      expect(unseal(credRow.secretSealed, `credential:${cred.json.id}`)).toBe("rotate-all-the-things");
      // Tokens are still signed (with a key unsealed under the new master key) and verify.
      const { token } = await signToken({
        audience: "control",
        subject: owner.userId,
        jti: `tok_${Date.now()}`,
        ttlSeconds: 60,
      });
      expect((await verifyToken(token, "control")).sub).toBe(owner.userId);
    } finally {
      use(oldKey, newKey);
    }
  });
});
