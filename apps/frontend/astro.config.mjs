import node from "@astrojs/node";
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "astro/config";
import { noIcuForAstro } from "./no-icu-for-astro.mjs";

// Astro reads this variable when it records a build, which happens after the config is loaded,
// so setting it here keeps every invocation quiet even when a script forgets the env var.
process.env.ASTRO_TELEMETRY_DISABLED = "1";

/**
 * The server's JavaScript without comments and with non-ASCII characters escaped. V8 keeps a module's
 * source in memory as long as the module lives, in two bytes per character if one character is
 * outside Latin-1 (one "—" in a comment of the 1.7 MB entry doubled it to 3.4 MiB). The dashboard's
 * server heap after use fell from 21.9 to 19.5 MiB (bench/RESULTS.md). Browser code is left as is.
 */
function leanServerCode() {
  return {
    name: "stackgate:lean-server-code",
    configEnvironment(name) {
      if (name !== "client")
        return {
          build: { rolldownOptions: { output: { charset: "ascii", comments: false } } },
          ...productionServerCode(),
        };
    },
  };
}

/**
 * The self-contained server (npm start's and the images') carries React inside, whose server code
 * picks its production or development build by NODE_ENV: fixed to production at build time, as the
 * dashboard's own process always ran it. In the one process that runs the whole service, NODE_ENV is
 * the backend's (unset outside production), and the development build took 1.5-2 × the CPU per page
 * (bench/RESULTS.md); the other build is left out of the bundle.
 */
function productionServerCode() {
  return process.env.STACKGATE_FRONTEND_SELF_CONTAINED === "1"
    ? { define: { "process.env.NODE_ENV": JSON.stringify("production") } }
    : {};
}

/**
 * Every `astro build` is a production build, whatever NODE_ENV the caller has: Astro sets it only when
 * it is unset, so a shell with NODE_ENV=development, or a build started under Vitest (NODE_ENV=test),
 * shipped React's development build (client chunk 401 KB instead of 213 KB, with its dev-only checks).
 * This hook runs before Vite reads NODE_ENV for the build; `astro dev` keeps its development build.
 */
function productionBuilds() {
  return {
    name: "stackgate:production-builds",
    hooks: {
      "astro:config:setup": ({ command }) => {
        if (command === "build") process.env.NODE_ENV = "production";
      },
    },
  };
}

export default defineConfig({
  output: "server",
  adapter: node({ mode: "standalone" }),
  integrations: [productionBuilds(), react()],
  // The built server listens on HOST/PORT from the environment; these are the fallbacks.
  server: { host: "127.0.0.1", port: 4321 },
  // The gateway's CSP may forbid inline styles: always ship CSS as files.
  build: { inlineStylesheets: "never" },
  devToolbar: { enabled: false },
  // Parallel builds (tests, helpers) may each use their own output folder.
  outDir: process.env.STACKGATE_FRONTEND_DIST ?? "./dist",
  vite: {
    plugins: [tailwindcss(), leanServerCode(), noIcuForAstro()],
    // The container image's server carries its dependencies inside (3 MB instead of a 175 MB
    // node_modules); local builds keep them external, which builds several times faster.
    ssr: process.env.STACKGATE_FRONTEND_SELF_CONTAINED === "1" ? { noExternal: true } : {},
  },
});
