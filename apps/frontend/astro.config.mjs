import node from "@astrojs/node";
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "astro/config";

// Astro reads this variable when it records a build, which happens after the config is loaded,
// so setting it here keeps every invocation quiet even when a script forgets the env var.
process.env.ASTRO_TELEMETRY_DISABLED = "1";

export default defineConfig({
  output: "server",
  adapter: node({ mode: "standalone" }),
  integrations: [react()],
  // The built server listens on HOST/PORT from the environment; these are the fallbacks.
  server: { host: "127.0.0.1", port: 4321 },
  // The gateway's CSP may forbid inline styles: always ship CSS as files.
  build: { inlineStylesheets: "never" },
  devToolbar: { enabled: false },
  // Parallel builds (tests, helpers) may each use their own output folder.
  outDir: process.env.STACKGATE_FRONTEND_DIST ?? "./dist",
  vite: {
    plugins: [tailwindcss()],
    // The container image's server carries its dependencies inside (3 MB instead of a 175 MB
    // node_modules); local builds keep them external, which builds several times faster.
    ssr: process.env.STACKGATE_FRONTEND_SELF_CONTAINED === "1" ? { noExternal: true } : {},
  },
});
