import { resetEnvCache } from "@/server/platform/env";

/** Environment flags tests switch for the in-process app (read per call or per connection). */
export type TFlag = "CAPSTAN_PROVIDER_ALLOW_PRIVATE" | "CAPSTAN_WEBHOOK_ALLOW_PRIVATE" | "OIDC_ALLOW_INSECURE_ISSUER";

/** Runs `fn` with the flag on or off, then restores its previous value. */
export async function withFlag<T>(name: TFlag, on: boolean, fn: () => Promise<T>): Promise<T> {
  const previous = process.env[name];
  process.env[name] = on ? "1" : "0";
  resetEnvCache();
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env[name];
    else process.env[name] = previous;
    resetEnvCache();
  }
}
