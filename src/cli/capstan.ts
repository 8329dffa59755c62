import { parseArgs } from "node:util";
import { closeDb, getDb } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { callOperatorSocket, type TOperatorResponse } from "@/server/platform/operator-socket";
import { ensureSigningKey, reencryptSigningKeys } from "@/server/platform/jwt";
import { describeKeys, rotateAndDescribe } from "@/server/platform/signing-keys-report";
import { reencryptWebhookSecrets } from "@/server/domain/webhooks/subscriptions.service";
import { issueTokenForEmail, parseTtl } from "@/server/domain/identity/tokens.service";
import { reencryptCredentials } from "@/server/domain/credentials/credentials.service";
import { currentKekId } from "@/server/platform/crypto";

const USAGE = `capstan <command>

  token --email <email> [--ttl 1h] [--name cli]   print a control-audience API token for an existing user
  migrate                                          apply pending database migrations
  rotate-signing-key                               publish a new ES256 signing key; it signs once every JWKS cache
                                                   has it, and the old key stays published until its tokens expire
  rotate-signing-key --emergency [--reason <text>] a compromised key: the new key signs at once and every other key
                                                   is removed at once (every token they signed stops working)
  signing-keys                                     list the keys with their state and when it changes
  reencrypt-secrets                                re-seal credential secrets, webhook secrets and signing keys
                                                   under the current CAPSTAN_MASTER_KEY (alias: reencrypt-credentials)
                                                   (old keys in CAPSTAN_PREVIOUS_MASTER_KEYS; stop an embedded server first)

Uses DATABASE_URL (or the embedded PGlite in CAPSTAN_DATA_DIR when unset).`;

/** A running embedded server answered for us. */
function printOperator(res: TOperatorResponse): number {
  if (!res.ok) throw new Error(res.error);
  process.stdout.write("output" in res ? res.output : res.token + "\n");
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "token": {
      const { values } = parseArgs({ args: rest, options: { email: { type: "string" }, ttl: { type: "string", default: "1h" }, name: { type: "string", default: "cli" } } });
      if (!values.email) throw new Error("--email is required");
      const ttlSeconds = parseTtl(values.ttl);
      if (!env().DATABASE_URL) {
        // A running embedded server owns the database: ask it over its socket.
        const res = await callOperatorSocket({ cmd: "token", email: values.email, ttl_seconds: ttlSeconds, name: values.name });
        if (res) return printOperator(res);
      }
      await getDb();
      await ensureSigningKey();
      process.stdout.write((await issueTokenForEmail(values.email, ttlSeconds, values.name)) + "\n");
      return 0;
    }
    case "migrate":
      await getDb(); // opening the database migrates it (CAPSTAN_MIGRATE_ON_START defaults to on)
      process.stderr.write("migrations applied\n");
      return 0;
    case "rotate-signing-key": {
      const { values } = parseArgs({ args: rest, options: { emergency: { type: "boolean", default: false }, reason: { type: "string" } } });
      const opts = { emergency: values.emergency, reason: values.reason };
      if (!env().DATABASE_URL) {
        const res = await callOperatorSocket({ cmd: "rotate-signing-key", ...opts });
        if (res) return printOperator(res);
      }
      await getDb();
      process.stdout.write(await rotateAndDescribe(opts));
      return 0;
    }
    case "signing-keys": {
      if (!env().DATABASE_URL) {
        const res = await callOperatorSocket({ cmd: "signing-keys" });
        if (res) return printOperator(res);
      }
      await getDb();
      process.stdout.write(await describeKeys());
      return 0;
    }
    case "reencrypt-secrets":
    case "reencrypt-credentials": {
      await getDb();
      let anyFailed = false;
      for (const [what, run] of [
        ["credential secret(s)", reencryptCredentials],
        ["webhook secret(s)", reencryptWebhookSecrets],
        ["signing key(s)", reencryptSigningKeys],
      ] as const) {
        const { updated, failed } = await run();
        anyFailed ||= failed > 0;
        process.stdout.write(`re-sealed ${updated} ${what} under ${currentKekId()}${failed ? `; ${failed} failed (see log)` : ""}\n`);
      }
      return anyFailed ? 1 : 0;
    }
    default:
      process.stderr.write(USAGE + "\n");
      return command ? 2 : 0;
  }
}

main(process.argv.slice(2))
  .then(async (code) => {
    await closeDb();
    process.exit(code);
  })
  .catch(async (err: Error) => {
    process.stderr.write(`capstan: ${err.message}\n`);
    await closeDb().catch(() => undefined);
    process.exit(1);
  });
