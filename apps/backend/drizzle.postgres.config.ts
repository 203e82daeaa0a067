import { defineConfig } from "drizzle-kit";

// PostgreSQL's migrations, from the same tables in PostgreSQL's types (src/db/schema.postgres.ts).
export default defineConfig({
  dialect: "postgresql",
  schema: "./apps/backend/src/db/schema.postgres.ts",
  out: "./apps/backend/src/db/postgres-migrations",
});
