import { parseArgs } from "node:util";
import { closeDb, getDb } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { callOperatorSocket } from "@/server/platform/operator-socket";
import { ensureSigningKey, reencryptSigningKeys } from "@/server/platform/jwt";
import { newId } from "@/server/platform/ids";
import { listSigningKeys, rotateSigningKey, rotationTimings } from "@/server/platform/signing-keys";
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

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "token": {
      const { values } = parseArgs({ args: rest, options: { email: { type: "string" }, ttl: { type: "string", default: "1h" }, name: { type: "string", default: "cli" } } });
      if (!values.email) throw new Error("--email is required");
      const ttlSeconds = parseTtl(values.ttl!);
      if (!env().DATABASE_URL) {
        // A running embedded server owns the database: ask it over its socket.
        const res = await callOperatorSocket({ cmd: "token", email: values.email, ttl_seconds: ttlSeconds, name: values.name! });
        if (res?.ok) {
          process.stdout.write(res.token + "\n");
          return 0;
        }
        if (res) throw new Error(res.error);
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
      await getDb();
      const r = await rotateSigningKey({ emergency: values.emergency, reason: values.reason, correlationId: newId("evt"), actor: { kind: "system", id: null } });
      if (values.emergency) {
        process.stdout.write(
          `new signing key ${r.kid}: active now (emergency)\n` +
          `removed from the JWKS now: ${r.retired.join(", ") || "none"}\n` +
          "what this breaks: every token those keys signed fails verification now (at once in this database's servers within\n" +
          `${rotationTimings().cacheMs} ms): personal API tokens (users mint new ones), bridge tokens (apps fetch new ones with their\n` +
          "client credentials), runner tokens of executions in flight; verifiers that cached the old JWKS keep accepting the\n" +
          `old keys until their cache expires (at most max-age=${rotationTimings().jwksMaxAgeSeconds} s) and fetch the new key on its first unknown kid\n`,
        );
      } else {
        process.stdout.write(
          `new signing key ${r.kid}: next (published, not signing) until ${r.activates_at}, then active\n` +
          (r.previous ? `${r.previous} signs until then, then stays published until the last token it signed expires (see \`capstan signing-keys\`)\n` : ""),
        );
      }
      return 0;
    }
    case "signing-keys": {
      await getDb();
      for (const k of await listSigningKeys()) {
        const when =
          k.state === "next" ? `activates ${k.activates_at}` :
          k.state === "retiring" ? `retires ${k.retires_at}` :
          k.state === "retired" ? `retired ${k.retired_at ?? k.retires_at}${k.retired_reason ? ` (${k.retired_reason})` : ""}` :
          k.retires_at ? `retires ${k.retires_at}` : "signing";
        process.stdout.write(`${k.kid}  ${k.state.padEnd(8)}  ${when}\n`);
      }
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
