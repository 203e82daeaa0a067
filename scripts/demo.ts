/**
 * `npm run demo`: the whole service against the bundled Komodo simulator, the stand-in trivy
 * and an ntfy receiver that prints the alerts it gets. Everything is configured through
 * Stackgate's own API, as a person would in Settings.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_KEY, DEFAULT_SECRET, standInTrivyPath } from "@stackgate/simulators";
import { runTogether } from "./processes.ts";
import { buildWhatIsMissing, root, stackgateProcesses } from "./stackgate.ts";

const port = process.env.PORT ?? "8080";
const origin = `http://localhost:${port}`;
const komodoPort = process.env.DEMO_KOMODO_PORT ?? "9120";
const ntfyPort = process.env.DEMO_NTFY_PORT ?? "9130";
const admin = { email: "demo@stackgate.local", password: "stackgate-demo" };
const dataDir = join(root, "data/demo");

rmSync(dataDir, { recursive: true, force: true });
Object.assign(process.env, {
  DATA_DIR: dataDir,
  STACKGATE_DEMO: "1",
  SEED_ADMIN_EMAIL: admin.email,
  SEED_ADMIN_PASSWORD: admin.password,
  SEED_ADMIN_NAME: "Demo Admin",
  TRIVY_BIN: standInTrivyPath,
  STANDIN_TRIVY_SCAN_MS: "2500",
  SCANNER_SWEEP_DELAY_SECONDS: "5",
  SCANNER_SWEEP_INTERVAL_SECONDS: "60",
});

await buildWhatIsMissing();
runTogether([
  {
    name: "komodo",
    args: [join(root, "packages/simulators/src/komodo/cli.ts"), "--demo", "--port", komodoPort],
    color: 32,
  },
  { name: "ntfy", args: [join(root, "packages/simulators/src/ntfy/cli.ts"), "--port", ntfyPort], color: 34 },
  ...stackgateProcesses(),
]);

async function waitFor(url: string) {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not come up`);
}

async function configure() {
  await waitFor(`${origin}/api/auth/get-session`);
  const signIn = await fetch(`${origin}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify(admin),
  });
  const cookie = signIn.headers
    .getSetCookie()
    .map((value) => value.split(";")[0])
    .join("; ");
  const post = (path: string, body: unknown) =>
    fetch(origin + path, {
      method: "POST",
      headers: { "content-type": "application/json", origin, cookie },
      body: JSON.stringify(body),
    });
  await post("/api/v0/deploy/credentials", {
    name: "Demo Komodo",
    url: `http://127.0.0.1:${komodoPort}`,
    key: DEFAULT_KEY,
    secret: DEFAULT_SECRET,
  });
  await post("/api/v0/deploy/credentials/notify", {
    url: `http://127.0.0.1:${ntfyPort}`,
    topic: "stackgate-demo",
    enabled: true,
  });
  const line = "─".repeat(64);
  console.log(
    [
      "",
      line,
      `  Stackgate demo: ${origin}`,
      `  Sign in as ${admin.email} / ${admin.password}`,
      "  Komodo is simulated (the stack 'outline' fails its deploys); Trivy is a stand-in;",
      "  failure alerts are printed by the 'ntfy' process below. Ctrl-C stops everything.",
      line,
      "",
    ].join("\n"),
  );
}

configure().catch((error) => {
  console.error(`Demo setup failed: ${error.message}`);
  process.kill(process.pid, "SIGTERM");
});
