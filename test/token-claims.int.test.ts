import { decodeJwt, decodeProtectedHeader, importJWK, SignJWT, type JWK, type JWTPayload } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { unseal } from "@/server/platform/crypto";
import { db } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { issuer, MAX_TOKEN_LIFETIME_SECONDS, signToken } from "@/server/domain/signing-keys/jwt.service";
import { api, type TApiResult, type TTestUser } from "./support/api";
import { bootBridgeApp, bridge, kvCapability, setupBridge, type TBridgeSetup } from "./support/bridge-fixtures";

/**
 * Issue #15 item 5: a token is accepted only with `exp` and `iat`, a life
 * (exp - iat) within its kind's maximum and an `iat` not in the future, each
 * within the documented clock-skew allowance (CAPSTAN_JWT_CLOCK_SKEW_SECONDS).
 * The tokens below are signed with the service's real active key, so only
 * the claims differ from a genuine token.
 */
let s: TBridgeSetup;
let owner: TTestUser;
let signKey: CryptoKey | Uint8Array;
let kid: string;

beforeAll(async () => {
  await bootBridgeApp();
  s = await setupBridge({ capabilities: [kvCapability()] });
  owner = s.owner;
  kid = decodeProtectedHeader(owner.token).kid!;
  const row = await db().signingKey.findUniqueOrThrow({ where: { kid }, omit: { privateJwkSealed: false } });
  signKey = await importJWK(JSON.parse(unseal(row.privateJwkSealed, `signing_key:${kid}`)) as JWK, "ES256");
});

/** A token like `genuine` (same sub, jti, audience, issuer, key) with `claims` overriding exp/iat (undefined = absent). */
async function forge(genuine: string, claims: { exp?: number; iat?: number }): Promise<string> {
  const g = decodeJwt<Record<string, unknown>>(genuine);
  const { exp: _e, iat: _i, ...rest } = g;
  const payload: JWTPayload = { ...rest };
  if (claims.exp !== undefined) payload.exp = claims.exp;
  if (claims.iat !== undefined) payload.iat = claims.iat;
  return new SignJWT(payload).setProtectedHeader({ alg: "ES256", kid, typ: "JWT" }).sign(signKey);
}

function expect401(r: TApiResult, description: RegExp) {
  expect(r.status, r.text).toBe(401);
  expect(r.headers.get("www-authenticate")).toMatch(description);
}

const now = () => Math.floor(Date.now() / 1000);

describe("token claims: exp, iat and a maximum lifetime per kind", () => {
  it("the genuine tokens work (the forgeries below differ only in their claims)", async () => {
    expect(
      (await api("GET", "/v1/workspaces", { token: await forge(owner.token, { iat: now(), exp: now() + 600 }) }))
        .status,
    ).toBe(200);
    expect(
      (await bridge(await forge(s.token, { iat: now(), exp: now() + 600 }), "data.kv", "get", { key: "/app/x" }))
        .status,
    ).toBe(200);
  });

  for (const kind of ["control", "bridge"] as const) {
    const call = (token: string) =>
      kind === "control" ? api("GET", "/v1/workspaces", { token }) : bridge(token, "data.kv", "get", { key: "/app/x" });
    const genuine = () => (kind === "control" ? owner.token : s.token);

    it(`${kind}: a token without exp is refused`, async () => {
      expect401(await call(await forge(genuine(), { iat: now() })), /exp and iat are required/);
    });

    it(`${kind}: a token without iat is refused`, async () => {
      expect401(await call(await forge(genuine(), { exp: now() + 600 })), /exp and iat are required/);
    });

    it(`${kind}: a token living longer than ${MAX_TOKEN_LIFETIME_SECONDS[kind]} s is refused`, async () => {
      const iat = now();
      expect401(
        await call(await forge(genuine(), { iat, exp: iat + MAX_TOKEN_LIFETIME_SECONDS[kind] + 1 })),
        /lifetime check failed/,
      );
      // Exactly the maximum is fine.
      expect(
        (await call(await forge(genuine(), { iat, exp: iat + Math.min(MAX_TOKEN_LIFETIME_SECONDS[kind], 3600) })))
          .status,
      ).toBe(200);
    });

    it(`${kind}: iat in the future beyond the skew allowance is refused; within it, accepted`, async () => {
      const skew = env().CAPSTAN_JWT_CLOCK_SKEW_SECONDS;
      expect401(
        await call(await forge(genuine(), { iat: now() + skew + 30, exp: now() + skew + 600 })),
        /iat|nbf|claims check failed/,
      );
      expect((await call(await forge(genuine(), { iat: now() + Math.floor(skew / 2), exp: now() + 600 }))).status).toBe(
        200,
      );
    });

    it(`${kind}: exp past by more than the skew allowance is refused; within it, accepted`, async () => {
      const skew = env().CAPSTAN_JWT_CLOCK_SKEW_SECONDS;
      expect401(await call(await forge(genuine(), { iat: now() - 600, exp: now() - skew - 5 })), /expir/);
      expect((await call(await forge(genuine(), { iat: now() - 600, exp: now() - Math.floor(skew / 2) }))).status).toBe(
        200,
      );
    });
  }

  it("the service never signs a token longer than its kind allows", async () => {
    await expect(
      signToken({ audience: "bridge", subject: s.svc.id, jti: "x", ttlSeconds: MAX_TOKEN_LIFETIME_SECONDS.bridge + 1 }),
    ).rejects.toThrow(/at most/);
    const { token } = await signToken({ audience: "bridge", subject: s.svc.id, jti: "y", ttlSeconds: 600 });
    const c = decodeJwt(token);
    expect(c.exp! - c.iat!).toBe(600);
    expect(c.iss).toBe(issuer());
  });
});
