import { createBackends, createInProcessBackends, inProcessBackend } from "./backends.ts";

/** `BACKEND_URLS` (comma-separated, several backends on one database), else `BACKEND_URL`. */
const backendUrls = (process.env.BACKEND_URLS || process.env.BACKEND_URL || "http://127.0.0.1:3000")
  .split(",")
  .map((url) => url.trim())
  .filter(Boolean);

const backendInThisProcess = inProcessBackend();

/** Server-only settings, read from the environment at run time (never inlined at build time). */
export const serverEnv = {
  // In the one process that runs the whole service, the backend's own `fetch`; else over HTTP.
  backends: backendInThisProcess
    ? createInProcessBackends(backendInThisProcess)
    : createBackends(backendUrls),
  version: process.env.STACKGATE_VERSION || "dev",
  demo: process.env.STACKGATE_DEMO === "1",
};
