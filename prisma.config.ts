import { defineConfig } from "prisma/config";

// The CLI is only used for `prisma generate` here: migrations are applied by
// scripts/migrate.ts (see docs/decisions.md), so no datasource URL is needed.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
