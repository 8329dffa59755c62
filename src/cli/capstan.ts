import { parseArgs } from "node:util";
import { closeDb, getDb } from "@/server/platform/db/client";
import { env, resetEnvCache } from "@/server/platform/env";
import { callOperatorSocket, type TOperatorResponse } from "@/server/platform/operator-socket";
import { ensureSigningKey, reencryptSigningKeys } from "@/server/domain/signing-keys/jwt.service";
import { describeKeys, rotateAndDescribe } from "@/server/domain/signing-keys/operator-report";
import { reencryptWebhookSecrets } from "@/server/domain/webhooks/subscriptions.service";
import { issueTokenForEmail, parseTtl } from "@/server/domain/identity/tokens.service";
import { reencryptCredentials } from "@/server/domain/credentials/credentials.service";
import { currentKekId } from "@/server/platform/crypto";
import { closeMonthReport } from "@/server/domain/billing/month-close.service";

const USAGE = `capstan <command>

For operators (on the server's machine, with its database):

  token --email <email> [--ttl 1h] [--name cli]   print a control-audience API token for an existing user
  migrate                                          apply pending database migrations
  rotate-signing-key                               publish a new ES256 signing key; it signs once every JWKS cache
                                                   has it, and the old key stays published until its tokens expire
  rotate-signing-key --emergency [--reason <text>] a compromised key: the new key signs at once and every other key
                                                   is removed at once (every token they signed stops working)
  signing-keys                                     list the keys with their state and when it changes
  billing close --month YYYY-MM [--workspace ws_…] close a month now: issue its invoices (one workspace, or every
                                                   workspace); a no-op where the month is already closed
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
  // Developer commands (login, deploy, logs, ...) talk REST through the generated client: src/cli/dev.
  const dev = await import("./dev/main");
  if (dev.isDevCommand(command)) return dev.runDev(command!, rest);
  switch (command) {
    case "token": {
      const { values } = parseArgs({
        args: rest,
        options: {
          email: { type: "string" },
          ttl: { type: "string", default: "1h" },
          name: { type: "string", default: "cli" },
        },
      });
      if (!values.email) throw new Error("--email is required");
      const ttlSeconds = parseTtl(values.ttl);
      if (!env().DATABASE_URL) {
        // A running embedded server owns the database: ask it over its socket.
        const res = await callOperatorSocket({
          cmd: "token",
          email: values.email,
          ttl_seconds: ttlSeconds,
          name: values.name,
        });
        if (res) return printOperator(res);
      }
      await getDb();
      await ensureSigningKey();
      process.stdout.write((await issueTokenForEmail(values.email, ttlSeconds, values.name)) + "\n");
      return 0;
    }
    case "migrate":
      // Opening the database migrates it (under an advisory lock), whatever CAPSTAN_MIGRATE_ON_START
      // says: replicas run with it off and this command is the one step that migrates.
      process.env.CAPSTAN_MIGRATE_ON_START = "1";
      resetEnvCache();
      await getDb();
      process.stderr.write("migrations applied\n");
      return 0;
    case "rotate-signing-key": {
      const { values } = parseArgs({
        args: rest,
        options: { emergency: { type: "boolean", default: false }, reason: { type: "string" } },
      });
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
    case "billing": {
      const [sub, ...args] = rest;
      if (sub !== "close") throw new Error("usage: capstan billing close --month YYYY-MM [--workspace ws_…]");
      const { values } = parseArgs({ args, options: { month: { type: "string" }, workspace: { type: "string" } } });
      if (!values.month || !/^\d{4}-(0[1-9]|1[0-2])$/.test(values.month))
        throw new Error("--month YYYY-MM is required");
      if (values.workspace !== undefined && !/^ws_[0-9a-z]+$/.test(values.workspace))
        throw new Error("--workspace must be a ws_ id");
      if (!env().DATABASE_URL) {
        const res = await callOperatorSocket({
          cmd: "billing-close",
          month: values.month,
          workspace_id: values.workspace,
        });
        if (res) return printOperator(res);
      }
      await getDb();
      process.stdout.write(await closeMonthReport(values.month, values.workspace));
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
        process.stdout.write(
          `re-sealed ${updated} ${what} under ${currentKekId()}${failed ? `; ${failed} failed (see log)` : ""}\n`,
        );
      }
      return anyFailed ? 1 : 0;
    }
    default: {
      // `capstan`, `capstan help`, `--help`, `-h`: the usage on stdout and exit 0; anything else is a usage error.
      const help = !command || command === "help" || command === "--help" || command === "-h";
      (help ? process.stdout : process.stderr).write(`${USAGE}\n\n${dev.DEV_USAGE}\n`);
      return help ? 0 : 2;
    }
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
