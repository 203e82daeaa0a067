// Single-file builds of the gateway, the backend and the whole service in one process (`stackgate.mjs`
// beside the backend's `main.mjs`), for `npm start` and the container images: one ES module per
// entry point with every dependency inside, so an image carries a few megabytes of JavaScript instead
// of the ~400 MB node_modules tree a workspace install brings (TypeScript, drizzle-kit, Scalar's whole
// source tree, the dashboard's build tools). What cannot be bundled is copied beside it:
// - better-sqlite3: a native module; its JavaScript plus the Linux prebuilt binaries it ships;
// - the SQL migrations, which the backend applies on start from `./migrations` (SQLite) and
//   `./postgres-migrations` beside its code;
// - Scalar's browser bundle, the one file of Scalar that the reference page serves.
// Usage: node scripts/bundle.ts [outDir]   (default: dist/bundle)
import { cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { build, type Plugin } from "esbuild";

const root = join(import.meta.dirname, "..");
const outDir = resolve(root, process.argv[2] ?? "dist/bundle");
const require = createRequire(join(root, "apps/backend/package.json"));

// Bundled CommonJS dependencies call `require`, which an ES module does not have by itself.
const banner = {
  js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
};

/**
 * Node's built-in modules reached through `require` instead of `import`. An `import` of a built-in
 * reads every export once, and some are getters that load a whole subsystem: `node:http`'s
 * `WebSocket` loads undici (about 10 MiB and 100 ms of start-up), `node:crypto`'s `webcrypto` the Web
 * Crypto API; behind `require`, each export is read when the code uses it.
 */
const builtinsThroughRequire: Plugin = {
  name: "builtins-through-require",
  setup(build) {
    const builtins = new Set(builtinModules);
    build.onResolve({ filter: /^[a-z_/:]+$/ }, ({ path, kind }) => {
      const name = path.replace(/^node:/, "");
      if (kind !== "import-statement" || !builtins.has(name)) return undefined;
      return { path: `node:${name}`, namespace: "builtin-through-require" };
    });
    build.onLoad({ filter: /.*/, namespace: "builtin-through-require" }, ({ path }) => ({
      contents: `module.exports = require(${JSON.stringify(path)});`,
      loader: "js",
    }));
  },
};

/**
 * Modules that dependencies `require` at load time for features we never use, made to load on their
 * first use instead: the stand-in's properties are read from the real module then. It says it is an
 * ES module's namespace, so that TypeScript's `__importStar` helper takes it as is rather than
 * copying (and thereby loading) every export. For the gateway, http-proxy-3 loads `node:http2` (for
 * an HTTPS listener), `node:https` (for HTTPS targets) and follow-redirects with `node:assert`: 6–8 MiB
 * and 20–50 ms of start-up that a proxy to two plain-HTTP targets never needs.
 */
function loadedOnFirstUse(modules: string[]): Plugin {
  return {
    name: "loaded-on-first-use",
    setup(build) {
      const filter = new RegExp(`^(${modules.map((name) => name.replace(/[/.]/g, "\\$&")).join("|")})$`);
      build.onResolve({ filter }, ({ path, kind, namespace }) =>
        kind === "require-call" && namespace !== "loaded-on-first-use"
          ? { path, namespace: "loaded-on-first-use" }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "loaded-on-first-use" }, ({ path }) => ({
        contents: `let loaded;
const load = () => (loaded ??= require(${JSON.stringify(path)}));
module.exports = new Proxy({}, { get: (_, key) => (key === "__esModule" ? true : load()[key]) });`,
        loader: "js",
        resolveDir: root,
      }));
    },
  };
}

/**
 * Hono's Node adapter imports `node:http2` to tell HTTP/2 requests apart (`instanceof
 * Http2ServerRequest`). Stackgate's servers speak HTTP/1.1 (`node:http`) only, so no request is one,
 * and loading `node:http2` cost every start 60 ms (bench/RESULTS.md, issue 34): in the builds, the
 * adapter's HTTP/2 class is one nothing is an instance of, and its HTTP/2 constants are never read.
 */
const honoWithoutHttp2: Plugin = {
  name: "hono-without-http2",
  setup(build) {
    build.onLoad({ filter: /[\\/]@hono[\\/]node-server[\\/]dist[\\/].*\.mjs$/ }, async ({ path }) => {
      const source = await readFile(path, "utf8");
      const http2 = 'import { Http2ServerRequest, constants } from "node:http2";';
      if (!source.includes("node:http2")) return undefined;
      if (!source.includes(http2))
        throw new Error(`${path} imports node:http2 otherwise than hono-without-http2 expects: update it`);
      return {
        contents: source.replace(
          http2,
          "const Http2ServerRequest = class NoHttp2Request {}; const constants = {};",
        ),
        loader: "js",
      };
    });
  },
};

async function bundle(
  entryPoints: Record<string, string>,
  outdir: string,
  { external = [], plugins = [] }: { external?: string[]; plugins?: Plugin[] } = {},
) {
  await build({
    entryPoints,
    outdir,
    bundle: true,
    platform: "node",
    target: "node24",
    format: "esm",
    outExtension: { ".js": ".mjs" },
    splitting: true,
    chunkNames: "[name]-[hash]",
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "none",
    banner,
    external,
    plugins: [builtinsThroughRequire, ...plugins],
    logLevel: "warning",
  });
}

rmSync(outDir, { recursive: true, force: true });

await bundle({ main: join(root, "apps/gateway/src/main.ts") }, join(outDir, "gateway"), {
  plugins: [loadedOnFirstUse(["node:http2", "node:https", "follow-redirects"])],
});

const backendDir = join(outDir, "backend");
await bundle(
  {
    main: join(root, "apps/backend/src/main.ts"),
    // The whole service in one process: beside the backend's build, whose migrations, Scalar bundle
    // and better-sqlite3 it uses, sharing its chunks. The dashboard's server is loaded at run time
    // (STACKGATE_FRONTEND_ENTRY; its own build, dist/frontend).
    stackgate: join(root, "apps/gateway/src/one-process.ts"),
    "reset-password": join(root, "apps/backend/src/identity/sessions/reset-password.ts"),
    "copy-to-postgres": join(root, "apps/backend/src/db/copy-to-postgres.ts"),
  },
  backendDir,
  // pg-native: node-postgres's optional native driver, which Stackgate does not use.
  { external: ["better-sqlite3", "pg-native"], plugins: [honoWithoutHttp2] },
);
cpSync(join(root, "apps/backend/src/db/migrations"), join(backendDir, "migrations"), { recursive: true });
cpSync(join(root, "apps/backend/src/db/postgres-migrations"), join(backendDir, "postgres-migrations"), {
  recursive: true,
});

const scalarEntry = require.resolve("@scalar/api-reference");
cpSync(join(dirname(scalarEntry), "browser/standalone.js"), join(backendDir, "scalar-standalone.js"));

const sqliteDir = dirname(require.resolve("better-sqlite3/package.json"));
const sqliteTarget = join(backendDir, "node_modules/better-sqlite3");
mkdirSync(join(sqliteTarget, "prebuilds"), { recursive: true });
cpSync(join(sqliteDir, "package.json"), join(sqliteTarget, "package.json"));
cpSync(join(sqliteDir, "lib"), join(sqliteTarget, "lib"), { recursive: true });
// Linux for the images; and this machine's own, for `npm start`, which runs these builds too.
const wantedBinary = (name: string) =>
  name.startsWith("linux") || name === `${process.platform}-${process.arch}.node`;
for (const binary of readdirSync(join(sqliteDir, "prebuilds")).filter(wantedBinary))
  cpSync(join(sqliteDir, "prebuilds", binary), join(sqliteTarget, "prebuilds", binary));

console.log(`Bundled the gateway, the backend and the one process into ${outDir}`);
