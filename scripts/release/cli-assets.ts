// The CLI's release assets, as the release workflow attaches them to a tag's GitHub release: the
// single file `stackgate.mjs` (Node.js 20 or newer, nothing to install) and `stackgate.mjs.sha256`
// (`sha256sum -c stackgate.mjs.sha256` checks it). Refuses a tag that is not the version the file
// carries (packages/cli/package.json), so a release never ships a file that names another version.
// Usage: node scripts/release/cli-assets.ts <tag, e.g. v1.2.3> <out dir>
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const repo = join(import.meta.dirname, "../..");
const bundled = join(repo, "packages/cli/bundle/stackgate.mjs");

export function cliAssets(tag: string, outDir: string): { version: string; files: string[] } {
  const { version } = JSON.parse(readFileSync(join(repo, "packages/cli/package.json"), "utf8")) as {
    version: string;
  };
  if (tag !== `v${version}`)
    throw new Error(
      `The tag ${tag} is not the CLI's version (packages/cli/package.json: ${version}): tag v${version}, or bump the version and rebuild the bundle`,
    );
  const carried = execFileSync(process.execPath, [bundled, "version"], { encoding: "utf8" }).trim();
  if (carried !== version)
    throw new Error(
      `packages/cli/bundle/stackgate.mjs says ${carried}, not ${version}: run \`npm run build -w packages/cli\` and commit it`,
    );
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, "stackgate.mjs");
  copyFileSync(bundled, file);
  const sum = createHash("sha256").update(readFileSync(file)).digest("hex");
  // sha256sum's own format: `sha256sum -c` reads it.
  writeFileSync(`${file}.sha256`, `${sum}  stackgate.mjs\n`);
  return { version, files: [file, `${file}.sha256`] };
}

if (import.meta.main) {
  const [tag, outDir] = process.argv.slice(2);
  if (!tag || !outDir) {
    console.error("Usage: node scripts/release/cli-assets.ts <tag, e.g. v1.2.3> <out dir>");
    process.exit(2);
  }
  try {
    const { files } = cliAssets(tag, resolve(outDir));
    for (const file of files) console.log(file);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
