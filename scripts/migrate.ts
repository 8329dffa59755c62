// `npm run db:migrate`: apply pending migrations to DATABASE_URL (or the embedded PGlite).
import { closeDb, getDb } from "../src/server/platform/db/client";

process.env.CAPSTAN_MIGRATE_ON_START = "1";
await getDb();
await closeDb();
console.log("migrations applied");
