/**
 * Prints an API token for the bench's bootstrap owner (BOOTSTRAP_ADMIN_EMAIL),
 * issued with the services on the database and keys of the environment it runs
 * in: `node --import tsx bench/lib/issue-token.ts` with a server's env. A process
 * of its own, because the services read their configuration once per process
 * (bench/isolation.ts runs one server per sandbox mode).
 */
export {};
const { getDb, closeDb } = await import("../../src/server/platform/db/client");
const { issueTokenForEmail } = await import("../../src/server/domain/identity/tokens.service");
await getDb();
const token = await issueTokenForEmail(process.env.BOOTSTRAP_ADMIN_EMAIL ?? "bench@example.test", 3600, "bench");
process.stdout.write(`${token}\n`);
await closeDb();
process.exit(0);
