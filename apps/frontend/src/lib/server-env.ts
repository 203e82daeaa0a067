/** Server-only settings, read from the environment at run time (never inlined at build time). */
export const serverEnv = {
  backendUrl: (process.env.BACKEND_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, ""),
  version: process.env.STACKGATE_VERSION || "dev",
  demo: process.env.STACKGATE_DEMO === "1",
};
