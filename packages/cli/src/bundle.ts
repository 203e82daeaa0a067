// Builds the CLI and the GitHub Action's entry point, each to one file with nothing to install:
// bundle/stackgate.mjs (the package's `bin`, also copied into the CLI image) and bundle/action.mjs
// (action.yml's `main`). Both are committed, since a GitHub Action runs from the repository as it
// is; bundle.test.ts fails when they differ from what these sources build.
// Usage: node packages/cli/src/bundle.ts [outDir]   (default: packages/cli/bundle)
import { chmodSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const packageDir = join(import.meta.dirname, "..");

export async function bundleCli(outDir: string) {
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  await build({
    entryPoints: {
      stackgate: join(packageDir, "src/main.ts"),
      action: join(packageDir, "src/action.ts"),
    },
    outdir: outDir,
    // Paths in the bundle's comments are relative to this, whatever directory the build runs from.
    absWorkingDir: packageDir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    // The CLI also runs from `npx` on machines with an older Node than the action's node24.
    target: "node20",
    format: "esm",
    legalComments: "none",
    banner: { js: "#!/usr/bin/env node\n// Built by packages/cli/src/bundle.ts; do not edit." },
    define: { STACKGATE_CLI_VERSION: JSON.stringify(version) },
    logLevel: "warning",
  });
  chmodSync(join(outDir, "stackgate.mjs"), 0o755);
}

if (import.meta.main) {
  const outDir = resolve(process.argv[2] ?? join(packageDir, "bundle"));
  await bundleCli(outDir);
  console.log(`Bundled the stackgate CLI and the GitHub Action into ${outDir}`);
}
