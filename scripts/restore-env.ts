/**
 * Vitest setup for the unit and PostgreSQL projects, which run their files one after another in
 * the same worker (`isolate: false`): whatever a file sets in `process.env` (the stand-in trivy's
 * run log, its slowness) is undone when the file ends, so the next file and the processes it starts
 * never inherit it.
 */
import { afterAll } from "vitest";

const atStart = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in atStart)) delete process.env[name];
  Object.assign(process.env, atStart);
});
