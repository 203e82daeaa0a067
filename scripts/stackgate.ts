import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type ProcessSpec, runStep } from "./processes.ts";

export const root = join(import.meta.dirname, "..");
const frontendEntry = join(root, "apps/frontend/dist/server/entry.mjs");

/** Builds the dashboard when no build exists yet (a fresh clone). */
export async function buildFrontendIfMissing() {
  if (existsSync(frontendEntry)) return;
  await runStep("Building the dashboard (first start only)…", process.execPath, [
    join(root, "node_modules/astro/bin/astro.mjs"),
    "build",
    "--root",
    join(root, "apps/frontend"),
  ]);
}

const packageVersion = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string })
  .version;

/** Gateway, backend and frontend, wired to each other from the environment. */
export function stackgateProcesses(env: NodeJS.ProcessEnv = process.env): ProcessSpec[] {
  env.STACKGATE_VERSION ??= packageVersion;
  const port = env.PORT ?? "8080";
  const backendPort = env.BACKEND_PORT ?? "3000";
  const frontendPort = env.FRONTEND_PORT ?? "4321";
  const backendUrl = `http://127.0.0.1:${backendPort}`;
  return [
    {
      name: "backend",
      args: [join(root, "apps/backend/src/main.ts")],
      env: { BACKEND_PORT: backendPort, APP_URL: env.APP_URL ?? `http://localhost:${port}` },
      color: 36,
    },
    {
      name: "frontend",
      args: [frontendEntry],
      env: { HOST: "127.0.0.1", PORT: frontendPort, BACKEND_URL: backendUrl },
      color: 35,
    },
    {
      name: "gateway",
      args: [join(root, "apps/gateway/src/main.ts")],
      env: { PORT: port, BACKEND_URL: backendUrl, FRONTEND_URL: `http://127.0.0.1:${frontendPort}` },
      color: 33,
    },
  ];
}
