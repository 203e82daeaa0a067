import { join } from "node:path";
import { findPostgresPrograms } from "../apps/backend/src/testing/postgres.ts";
import { runStep } from "./processes.ts";
import { root } from "./stackgate.ts";

// The unit tests, and the backend's storing tests again on a throw-away PostgreSQL server.
const projects = ["--project", "unit"];
if (findPostgresPrograms()) {
  projects.push("--project", "postgres");
} else if (process.env.CI === "true") {
  console.error(
    "No PostgreSQL server programs: CI never skips the PostgreSQL tests (install postgresql or set POSTGRES_BIN_DIR).",
  );
  process.exit(1);
} else {
  const line = "!".repeat(78);
  console.warn(
    [
      line,
      "!! POSTGRESQL TESTS SKIPPED: no PostgreSQL server programs (/usr/lib/postgresql/<15+>/bin)",
      "!! Install them (apt-get install -y postgresql) or set POSTGRES_BIN_DIR. CI always has them.",
      line,
    ].join("\n"),
  );
}

await runStep(
  `Running the ${projects.filter((_, index) => index % 2 === 1).join(" and ")} tests`,
  process.execPath,
  [join(root, "node_modules/vitest/vitest.mjs"), "run", ...projects],
);
