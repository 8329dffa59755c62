import { spawn } from "node:child_process";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { workspaceDataKey } from "@/server/platform/crypto";
import { managedPostgresUrl } from "./postgres-admin";

/**
 * Logical backups with the PostgreSQL client tools (issue #33 item 4).
 * `pg_dump --format=custom` of a resource's database is streamed through
 * AES-256-GCM under the workspace's data key into a file (then the blob
 * store); a restore decrypts (the tag checked before a byte reaches the
 * server) and feeds `pg_restore` as the resource's own role. The tools run
 * with an argument array and the admin connection in PG* environment
 * variables, so no password appears in a process list.
 *
 * File layout: "CSBK1\n" <iv 12 bytes> <ciphertext> <tag 16 bytes>; the KEK
 * id is kept on the backup row.
 */
const MAGIC = Buffer.from("CSBK1\n");
const AAD = (workspaceId: string, backupId: string) =>
  Buffer.from(`managed-resource-backup:${workspaceId}:${backupId}`);

function pgEnv(database: string): Record<string, string> {
  const raw = managedPostgresUrl();
  if (!raw) throw new Error("no managed PostgreSQL server is configured");
  const u = new URL(raw);
  const host =
    u.searchParams.get("host") ?? (decodeURIComponent(u.hostname).replace(/^\[(.*)\]$/, "$1") || "127.0.0.1");
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    PGHOST: host,
    PGPORT: u.port || "5432",
    PGUSER: decodeURIComponent(u.username) || "postgres",
    ...(u.password ? { PGPASSWORD: decodeURIComponent(u.password) } : {}),
    PGDATABASE: database,
    PGCONNECT_TIMEOUT: "10",
    PGAPPNAME: "capstan-backup",
  };
}

/** Runs a client tool; resolves with its stderr (bounded) or rejects with it. */
function run(
  cmd: string,
  args: string[],
  database: string,
  io: { stdout?: NodeJS.WritableStream; stdin?: Buffer },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: pgEnv(database) as NodeJS.ProcessEnv, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr = (stderr + b.toString()).slice(-2000)));
    if (io.stdout) child.stdout.pipe(io.stdout, { end: false });
    else child.stdout.resume();
    child.stdin.on("error", () => undefined);
    child.stdin.end(io.stdin);
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} exited with ${code}: ${stderr.trim()}`)),
    );
  });
}

/** Dumps `database` into `file`, encrypted; returns the KEK id and the bytes written. */
export async function dumpEncrypted(p: {
  workspaceId: string;
  backupId: string;
  database: string;
  file: string;
}): Promise<{ kekId: string; bytes: number }> {
  const { kekId, key } = workspaceDataKey(p.workspaceId);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(AAD(p.workspaceId, p.backupId));
  const out = createWriteStream(p.file, { mode: 0o600 });
  let bytes = 0;
  const write = async (b: Buffer) => {
    bytes += b.length;
    if (!out.write(b)) await once(out, "drain");
  };
  await write(MAGIC);
  await write(iv);
  cipher.on("data", (b: Buffer) => {
    bytes += b.length;
    out.write(b);
  });
  await run("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", "--compress=6"], p.database, {
    stdout: cipher,
  });
  cipher.end();
  await once(cipher, "end");
  await write(cipher.getAuthTag());
  out.end();
  await once(out, "close");
  return { kekId, bytes };
}

/** Decrypts a backup (the whole tag checked first) and restores it into `database` as `role`; `clean` drops what exists first. */
export async function restoreEncrypted(p: {
  workspaceId: string;
  backupId: string;
  kekId: string;
  blob: Buffer;
  database: string;
  role: string;
  clean: boolean;
}): Promise<void> {
  if (p.blob.length < MAGIC.length + 12 + 16 || !p.blob.subarray(0, MAGIC.length).equals(MAGIC))
    throw new Error("not a Capstan backup");
  const { key } = workspaceDataKey(p.workspaceId, p.kekId);
  const iv = p.blob.subarray(MAGIC.length, MAGIC.length + 12);
  const decipher = createDecipheriv("aes-256-gcm", key, iv);
  decipher.setAAD(AAD(p.workspaceId, p.backupId));
  decipher.setAuthTag(p.blob.subarray(p.blob.length - 16));
  const plain = Buffer.concat([
    decipher.update(p.blob.subarray(MAGIC.length + 12, p.blob.length - 16)),
    decipher.final(),
  ]);
  const args = [
    "--no-owner",
    "--no-privileges",
    `--role=${p.role}`,
    `--dbname=${p.database}`,
    "--exit-on-error",
    "--single-transaction",
  ];
  if (p.clean) args.push("--clean", "--if-exists");
  await run("pg_restore", args, p.database, { stdin: plain });
}
