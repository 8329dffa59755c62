import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { ask, CliError, confirm, DEFAULT_URL, EXIT, interactive, output, readProfile, usageError } from "./context";
import { describeCapability } from "./words";

/**
 * capstan init [dir] [--kv /prefix] [--storage /prefix] [--ai] [--email from@x --email-domain example.com] [--force]
 *
 * Writes capabilities.json (the contract: what the app may ask of Capstan)
 * with `$schema` pointing at the server's JSON Schema, so an editor checks it.
 * With no capability flag on a terminal it asks; in a script it writes what
 * the flags say (none: an empty contract).
 */
type TEntry = Record<string, unknown> & { id: string };

export function kv(prefix: string): TEntry {
  return {
    id: "data.kv",
    required: true,
    actions: ["get", "set", "increment", "delete", "list"],
    scope: { prefix, max_value_bytes: 65536, max_keys: 10000 },
    credential_owner: "platform",
    provider: { allow: ["platform"], fallback: "none" },
  };
}
function storage(prefix: string): TEntry {
  return {
    id: "storage.object",
    required: true,
    actions: ["read", "write", "delete", "list"],
    scope: { prefix, max_object_bytes: 10485760 },
    credential_owner: "workspace",
    provider: { allow: ["platform"], fallback: "none" },
  };
}
function ai(): TEntry {
  return {
    id: "ai.generate",
    required: false,
    actions: ["generate"],
    scope: { models: ["text"], max_tokens_per_call: 1024 },
    credential_owner: "workspace",
    provider: { allow: ["openai"], fallback: "none" },
  };
}
function email(from: string, domain: string): TEntry {
  return {
    id: "email.send",
    required: false,
    actions: ["send"],
    scope: { from_addresses: [from], recipient_domains: [domain], max_recipients: 10, max_message_bytes: 262144 },
    credential_owner: "workspace",
    provider: { allow: ["smtp"], fallback: "none" },
  };
}

const PREFIX = /^\/(?!.*\.\.)/;

export async function initCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      kv: { type: "string" },
      storage: { type: "string" },
      ai: { type: "boolean", default: false },
      email: { type: "string" },
      "email-domain": { type: "string" },
      force: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      url: { type: "string" },
    },
  });
  const dir = path.resolve(positionals[0] ?? ".");
  const file = path.join(dir, "capabilities.json");
  for (const [flag, p] of [
    ["--kv", values.kv],
    ["--storage", values.storage],
  ] as const) {
    if (p !== undefined && !PREFIX.test(p))
      throw usageError(`${flag} takes a key prefix starting with / and without .. (e.g. /app)`);
  }
  if ((values.email === undefined) !== (values["email-domain"] === undefined))
    throw usageError("--email and --email-domain go together");
  if (existsSync(file) && !values.force)
    throw new CliError(`${file} exists: pass --force to replace it.`, EXIT.failed, "exists");
  const entries: TEntry[] = [];
  const anyFlag = values.kv !== undefined || values.storage !== undefined || values.ai || values.email !== undefined;
  if (anyFlag || !interactive()) {
    if (values.kv !== undefined) entries.push(kv(values.kv));
    if (values.storage !== undefined) entries.push(storage(values.storage));
    if (values.ai) entries.push(ai());
    if (values.email !== undefined) entries.push(email(values.email, values["email-domain"]!));
  } else {
    if (await confirm("Does the app keep data in Capstan's key-value store (data.kv)?", false))
      entries.push(kv(await ask("  Key prefix:", "/app")));
    if (await confirm("Does it store files (storage.object)?", false))
      entries.push(storage(await ask("  Key prefix:", "/files")));
    if (await confirm("Does it call a language model (ai.generate)?", false)) entries.push(ai());
    if (await confirm("Does it send email (email.send)?", false))
      entries.push(email(await ask("  From address:"), await ask("  Recipient domain (* for any):", "*")));
  }
  const url = (values.url ?? process.env.CAPSTAN_URL ?? (await readProfile())?.url ?? DEFAULT_URL).replace(/\/+$/, "");
  const doc = { $schema: `${url}/capabilities.schema.json`, capabilities: entries };
  await writeFile(file, JSON.stringify(doc, null, 2) + "\n");
  output(values.json).result(
    [
      `Wrote ${file}:`,
      ...(entries.length
        ? entries.map((e) => `  ${describeCapability(e as never)}`)
        : ["  no capabilities (the app asks Capstan for nothing)"]),
      "Next: capstan deploy",
    ].join("\n"),
    { file, capabilities: entries },
  );
  return EXIT.ok;
}
