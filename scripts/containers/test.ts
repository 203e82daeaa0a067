// The container test (npm run test:containers): builds the four images from a clean clone with
// podman. The one-container install first (`stackgate`, run as the README says, with nothing but a
// port and a volume): its generated first password from the log, sign-in, a key deploy against the
// Komodo simulator running on this host, a scan by its own Trivy server's client, one Node process
// inside; then the container replaced by a new one on the same volume, and everything is still there.
// Then the project's compose.yml (only the Trivy service swapped for a stand-in), used through the
// published port as an operator and a pipeline would: health, sign-in, connecting the simulator,
// listing, a deploy with an API key, a scan inside the backend container; then `down` and `up` with
// the volume kept, and everything is still there; then compose.ha.yml. How podman works on these
// machines: shared/design/CONTAINERS-HERE.md.
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { type KomodoSimulator, startKomodoSimulator } from "../../packages/simulators/src/index.ts";

const execFileAsync = promisify(execFile);
const repo = join(import.meta.dirname, "../..");
const here = import.meta.dirname;
const base = "localhost/node:24-bookworm-slim";
const trivyStandIn = "localhost/stackgate-trivy-stand-in:test";
const postgresStandIn = "localhost/stackgate-postgres-stand-in:test";
const imagePrefix = "localhost/stackgate";
/** STACKGATE_CONTAINER_TEST_TAG: another tag (and project), for a run beside another one on the machine. */
const tag = process.env.STACKGATE_CONTAINER_TEST_TAG || "test";
const project = tag === "test" ? "stackgate-container-test" : `stackgate-container-test-${tag}`;
/**
 * Megabytes each image may add on top of the base image (with the stand-in Trivy: the real one adds
 * its own size to `stackgate` and `backend`).
 */
const sizeTargets = { stackgate: 120, gateway: 5, backend: 80, frontend: 60 };
const targets = ["stackgate", "gateway", "backend", "frontend"] as const;
/** The one container's image is `stackgate`; the split ones `stackgate-<target>` (compose.yml's names). */
const imageOf = (target: (typeof targets)[number] | string) =>
  target === "stackgate" ? `${imagePrefix}/stackgate:${tag}` : `${imagePrefix}/stackgate-${target}:${tag}`;

const work = mkdtempSync(join(tmpdir(), "stackgate-containers-"));
const port = 20_000 + Math.floor(Math.random() * 10_000);
const baseUrl = `http://127.0.0.1:${port}`;
const admin = {
  email: "admin@example.com",
  password: randomBytes(12).toString("base64url"),
  name: "Container Admin",
};
const composeEnv = {
  ...process.env,
  DOCKER_HOST: `unix://${join(work, "podman.sock")}`,
  COMPOSE_PROJECT_NAME: project,
  PORT: String(port),
  APP_URL: `http://localhost:${port}`,
  BETTER_AUTH_SECRET: randomBytes(32).toString("base64"),
  SEED_ADMIN_EMAIL: admin.email,
  SEED_ADMIN_PASSWORD: admin.password,
  SEED_ADMIN_NAME: admin.name,
  STACKGATE_IMAGE_PREFIX: imagePrefix,
  STACKGATE_VERSION: tag,
  SCANNER_SWEEP_DELAY_SECONDS: "3600",
  POSTGRES_PASSWORD: randomBytes(12).toString("base64url"),
};
/** compose.yml, or compose.ha.yml (two backends on PostgreSQL), each with its stand-ins. */
let composeFiles = ["compose.yml", "scripts/containers/compose.stand-ins.yml"];
let services = ["trivy", "backend", "frontend", "gateway"];

let passed = 0;
let failed = 0;
async function check(name: string, body: () => Promise<void> | void) {
  try {
    await body();
    passed++;
    console.log(`  ✓ ${name}`);
  } catch (error) {
    failed++;
    console.log(`  ✗ ${name}\n      ${error instanceof Error ? error.message : error}`);
  }
}
function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  return execFileSync(command, args, {
    encoding: "utf8",
    env: options.env ?? process.env,
    cwd: options.cwd ?? repo,
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  }).trim();
}
function step(title: string) {
  console.log(`\n${title}`);
}
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(0)} s`;

/** Asynchronous, so that the health checks below keep running while compose waits on them. */
async function compose(...args: string[]) {
  const { stdout } = await execFileAsync(
    "docker-compose",
    [...composeFiles.flatMap((file) => ["-f", join(repo, file)]), ...args],
    { env: composeEnv, cwd: repo, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout.trim();
}

// --- Building -------------------------------------------------------------------------------------

/** Builds an image on the test base, with the network (builds install packages). */
function buildImage(image: string, context: string, { cwd = repo, args = [] as string[] } = {}) {
  run(
    "podman",
    [
      "build",
      "-q",
      // Docker's image format: the OCI one has no HEALTHCHECK, and compose's start order needs it.
      "--format",
      "docker",
      "--network",
      "host",
      "--build-arg",
      `NODE_IMAGE=${base}`,
      ...args,
      "-t",
      image,
      context,
    ],
    { cwd },
  );
}

function buildImages() {
  step("Building");
  let started = performance.now();
  run("bash", [join(here, "setup-podman.sh")]);
  run("bash", [join(here, "base-image.sh")]);
  console.log(`  base image ready (${seconds(started)})`);

  const trivyContext = join(work, "trivy-stand-in");
  run("cp", ["-r", join(here, "trivy-stand-in"), trivyContext]);
  const standIn = readFileSync(join(repo, "packages/simulators/src/trivy/stand-in-trivy.mjs"), "utf8");
  writeFileSync(join(trivyContext, "trivy"), `#!/usr/bin/env node\n${standIn}`, { mode: 0o755 });
  run("podman", ["build", "-q", "--build-arg", `NODE_IMAGE=${base}`, "-t", trivyStandIn, trivyContext]);
  buildImage(postgresStandIn, join(here, "postgres-stand-in"));

  // A clean clone: only what is committed goes into the images.
  const clone = join(work, "clone");
  run("git", ["clone", "-q", repo, clone]);
  for (const target of targets) {
    started = performance.now();
    buildImage(imageOf(target), ".", {
      cwd: clone,
      args: [
        "--build-arg",
        `TRIVY_IMAGE=${trivyStandIn}`,
        "--build-arg",
        `STACKGATE_VERSION=${tag}`,
        "--target",
        target,
      ],
    });
    console.log(`  built ${target} (${seconds(started)})`);
  }
}

const imageBytes = (image: string) =>
  Number(run("podman", ["image", "inspect", image, "--format", "{{.Size}}"]));
const megabytes = (bytes: number) => bytes / 1_000_000;

async function checkImages() {
  step("Images");
  const baseBytes = imageBytes(base);
  for (const [target, limit] of Object.entries(sizeTargets)) {
    await check(`${target} adds at most ${limit} MB to the base image`, () => {
      const added = megabytes(imageBytes(imageOf(target)) - baseBytes);
      console.log(`      ${target}: ${added.toFixed(1)} MB added (target ≤ ${limit} MB)`);
      assert(added <= limit, `${target} adds ${added.toFixed(1)} MB`);
    });
  }
  await check("the base has no Python, make or compiler (like node:24-bookworm-slim)", () => {
    const found = run("podman", [
      "run",
      "--rm",
      base,
      "sh",
      "-c",
      "for tool in python3 make cc gcc g++; do command -v $tool || true; done",
    ]);
    assert(found === "", `found in the base: ${found}`);
  });
}

// --- Running --------------------------------------------------------------------------------------

let podmanService: ChildProcess | undefined;
let healthLoop: NodeJS.Timeout | undefined;

function startPodmanService() {
  podmanService = spawn("podman", ["system", "service", "--time=0", composeEnv.DOCKER_HOST], {
    stdio: "ignore",
    detached: true,
  });
}

/**
 * podman runs health checks from systemd timers, and there is none here: run them ourselves, one
 * at a time per container (on a loaded runner, overlapping checks pile up and time each other out).
 */
function runHealthChecks() {
  const running = new Set<string>();
  healthLoop = setInterval(() => {
    for (const service of services) {
      if (running.has(service)) continue;
      running.add(service);
      const check = spawn("podman", ["healthcheck", "run", `${project}_${service}_1`], {
        stdio: "ignore",
      });
      check.on("error", () => running.delete(service));
      check.on("exit", () => running.delete(service));
    }
  }, 2_000);
}

/** What each container's last health checks printed: the first thing to read when compose fails. */
function healthReport() {
  return services
    .map((service) => {
      try {
        const health = run("podman", [
          "inspect",
          "--format",
          "{{json .State.Health}}",
          `${project}_${service}_1`,
        ]);
        return `${service}: ${health.trim()}`;
      } catch {
        return `${service}: not created`;
      }
    })
    .join("\n");
}

async function composeUp() {
  const started = performance.now();
  await compose("up", "-d", "--no-build");
  await waitFor(
    "the gateway to answer /health/ready",
    async () => (await fetch(`${baseUrl}/health/ready`)).ok,
  );
  console.log(`  compose up: every service healthy and the backend reachable (${seconds(started)})`);
}

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The address containers reach this host at: the compose network's (or `network`'s) gateway. */
function hostAddressFromContainers(name = `${project}_default`): string {
  const [network] = JSON.parse(run("podman", ["network", "inspect", name])) as {
    subnets: { gateway: string }[];
  }[];
  return network.subnets[0].gateway;
}

// --- Using Stackgate through the published port ---------------------------------------------------

class Session {
  cookie = "";
  /** The origin the browser would send: compose's APP_URL, or the address used (the one container's). */
  readonly origin: string;
  readonly credentials: { email: string; password: string };
  constructor(origin = composeEnv.APP_URL, credentials: { email: string; password: string } = admin) {
    this.origin = origin;
    this.credentials = credentials;
  }
  async signIn() {
    const response = await fetch(`${baseUrl}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: this.origin },
      body: JSON.stringify(this.credentials),
    });
    assert(response.ok, `sign-in answered ${response.status}: ${await response.text()}`);
    this.cookie = response.headers
      .getSetCookie()
      .map((cookie) => cookie.split(";")[0])
      .join("; ");
    assert(this.cookie.includes("session_token"), "sign-in set no session cookie");
  }
  async request(method: string, path: string, body?: unknown) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        cookie: this.cookie,
        origin: this.origin,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    assert(response.ok, `${method} ${path} answered ${response.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  }
}

/** Saves the simulator on the host as the Komodo connection, as a person would; returns its URL. */
async function saveKomodoConnection(session: Session, komodo: KomodoSimulator, network?: string) {
  const url = `http://${hostAddressFromContainers(network)}:${komodo.port}`;
  await session.request("POST", "/api/v0/deploy/credentials", {
    name: "host komodo",
    url,
    key: komodo.key,
    secret: komodo.secret,
  });
  return url;
}

async function withKey(key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

interface HistoryRow {
  actor: string;
  stack: string;
}

interface World {
  session: Session;
  komodo: KomodoSimulator;
  key: string;
  stack: string;
  image: string;
}

async function firstUse(komodo: KomodoSimulator): Promise<World> {
  step("Using it");
  const session = new Session();
  const world = { session, komodo, key: "", stack: "", image: "" };
  await check("/health answers ok", async () => {
    const health = await (await fetch(`${baseUrl}/health`)).json();
    assert(health.status === "ok", JSON.stringify(health));
  });
  await check("the gateway serves the sign-in page", async () => {
    const page = await (await fetch(`${baseUrl}/sign-in`)).text();
    assert(page.includes("<title>Sign in"), "no sign-in page");
  });
  await check("every Stackgate container runs as a non-root user; the gateway listens on 80", () => {
    for (const service of ["gateway", "backend", "frontend"]) {
      const uid = run("podman", ["exec", `${project}_${service}_1`, "id", "-u"]);
      assert(uid !== "0", `${service} runs as root`);
    }
    const listening = run("podman", ["exec", `${project}_gateway_1`, "cat", "/proc/net/tcp"]);
    assert(/:0050 0{8}:0000 0A/.test(listening), "nothing listens on port 80 in the gateway");
  });
  await check("the seeded admin signs in", () => session.signIn());
  await check("a Komodo connection to the simulator on the host is saved", async () => {
    const url = await saveKomodoConnection(session, komodo);
    const { connection } = await session.request("GET", "/api/v0/deploy/credentials");
    assert(connection?.url === url, `connection is ${JSON.stringify(connection)}`);
  });
  await check("stacks are listed live", async () => {
    const { stacks } = (await session.request("GET", "/api/v0/stacks")) as {
      stacks: { name: string; images: string[] }[];
    };
    assert(stacks.length === 3, `listed ${stacks.length} stacks`);
    world.stack = stacks[0].name;
    world.image = stacks[0].images[0];
  });
  await check("a pipeline's deploy with an API key is answered with its outcome and recorded", async () => {
    world.key = (await session.request("POST", "/api/v0/apikeys", { name: "pipeline" })).key;
    const deploy = await withKey(world.key, "POST", "/api/v0/deploy", { stack: world.stack, action: "pull" });
    assert(deploy.status === 200 && deploy.body.success === true, `deploy: ${JSON.stringify(deploy)}`);
    assert(
      komodo.calls.some((call) => call.type === "PullStack"),
      "Komodo received no PullStack",
    );
    const { history } = (await session.request("GET", "/api/v0/history")) as { history: HistoryRow[] };
    assert(
      history.some((row) => row.stack === world.stack && row.actor === "API Key: pipeline"),
      `history: ${JSON.stringify(history)}`,
    );
  });
  await check("a scan runs trivy inside the backend container and ends done", async () => {
    await session.request("POST", "/api/v0/security/scan", { images: [world.image] });
    const query = `/api/v0/security/image?image=${encodeURIComponent(world.image)}`;
    let status = "";
    await waitFor(`the scan of ${world.image}`, async () => {
      status = (await session.request("GET", query)).status;
      return status === "done" || status === "failed";
    });
    assert(status === "done", `the scan ended ${status}`);
  });
  return world;
}

async function afterRestart(world: World) {
  step("After docker-compose down and up, volume kept");
  const session = new Session();
  await check("the same admin signs in with the same password", () => session.signIn());
  await check("the Komodo connection is still saved", async () => {
    const { connection } = await session.request("GET", "/api/v0/deploy/credentials");
    assert(connection?.name === "host komodo", `connection is ${JSON.stringify(connection)}`);
  });
  await check("the API key still works", async () => {
    const listed = await withKey(world.key, "GET", "/api/v0/stacks");
    assert(listed.status === 200, `listing with the key: ${listed.status}`);
  });
  await check("the history still holds the deploy", async () => {
    const { history } = (await session.request("GET", "/api/v0/history")) as { history: HistoryRow[] };
    assert(
      history.some((row) => row.stack === world.stack && row.actor === "API Key: pipeline"),
      "the deploy is gone",
    );
  });
}

async function operatorTools() {
  step("Operator tools");
  const backend = `${project}_backend_1`;
  await check("the README's online backup works inside the backend container", () => {
    run("podman", [
      "exec",
      backend,
      "node",
      "-e",
      "new (require('better-sqlite3'))('/data/db.sqlite').backup('/data/backup.sqlite').then(() => process.exit(0))",
    ]);
    const size = Number(run("podman", ["exec", backend, "stat", "-c", "%s", "/data/backup.sqlite"]));
    assert(size > 0, "the backup is empty");
  });
  await check("reset-password inside the backend container sets a new password", async () => {
    const output = run("podman", ["exec", backend, "node", "reset-password.mjs", admin.email]);
    const password = /password:\s*(\S+)/i.exec(output)?.[1];
    assert(password && password !== admin.password, `no new password in: ${output}`);
    admin.password = password;
    await new Session().signIn();
  });
  await check(
    "the gateway's health check fails while the backend is down, and passes again after",
    async () => {
      const gatewayHealthy = () => {
        try {
          run("podman", ["healthcheck", "run", `${project}_gateway_1`]);
          return true;
        } catch {
          return false;
        }
      };
      run("podman", ["stop", "-t", "10", backend]);
      assert(!gatewayHealthy(), "the gateway reports healthy without a backend");
      // curl, not fetch: the synchronous podman calls above kept this process from noticing that its
      // pooled connections were closed meanwhile.
      assert(
        run("curl", ["-sf", `${baseUrl}/health`]).includes('"ok"'),
        "/health (liveness) should still answer",
      );
      run("podman", ["start", backend]);
      await waitFor("the gateway to be healthy again", async () => gatewayHealthy());
    },
  );
}

// --- The one container --------------------------------------------------------------------------

const oneName = `${project}_one`;
const oneVolume = `${project}_one-data`;
const oneImage = imageOf("stackgate");

/** `docker run -p <port>:8080 -v <volume>:/data <image>`, as the README's small install: nothing else. */
function runOneContainer() {
  run("podman", ["run", "-d", "--name", oneName, "-p", `${port}:8080`, "-v", `${oneVolume}:/data`, oneImage]);
}

function removeOneContainer() {
  try {
    run("podman", ["rm", "-f", "-t", "10", oneName]);
  } catch {}
}

/** The command lines of the processes running in the one container. */
function processesInOneContainer(): string[] {
  return run("podman", [
    "exec",
    oneName,
    "sh",
    "-c",
    "for p in /proc/[0-9]*; do [ -r $p/cmdline ] && tr '\\0' ' ' < $p/cmdline && echo; done",
  ])
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
}

async function oneContainer(komodo: KomodoSimulator) {
  step("The one container (stackgate): docker run -p …:8080 -v …:/data, nothing else");
  removeOneContainer();
  try {
    run("podman", ["volume", "rm", "-f", oneVolume]);
  } catch {}
  let started = performance.now();
  runOneContainer();
  await waitFor(
    "the one container to answer /health/ready",
    async () => (await fetch(`${baseUrl}/health/ready`)).ok,
  );
  console.log(`  running and ready (${seconds(started)})`);
  const password = /password: +(\S+)/.exec(run("podman", ["logs", oneName]))?.[1] ?? "";
  const credentials = { email: "admin@stackgate.local", password };
  const session = new Session(baseUrl, credentials);
  let key = "";
  let stack = "";
  await check(
    "it prints the first admin's generated password in its log, and that admin signs in",
    async () => {
      assert(password !== "", `no password in the log:\n${run("podman", ["logs", oneName])}`);
      await session.signIn();
    },
  );
  await check(
    "the gateway, the backend and the dashboard run as one Node process; Trivy's server beside it",
    () => {
      const processes = processesInOneContainer();
      // The stand-in Trivy is a Node script too: left out.
      const node = processes.filter((line) => /^node /.test(line) && !line.includes("/usr/local/bin/trivy"));
      assert(node.length === 1 && node[0]!.includes("stackgate.mjs"), `processes: ${processes.join(" | ")}`);
      assert(
        processes.some((line) =>
          line.includes("trivy server --listen 127.0.0.1:4954 --cache-dir /data/trivy-cache"),
        ),
        `no Trivy server: ${processes.join(" | ")}`,
      );
      assert(run("podman", ["exec", oneName, "id", "-u"]) !== "0", "it runs as root");
    },
  );
  await check("it serves the sign-in page, and the dashboard's pages once signed in", async () => {
    assert((await (await fetch(`${baseUrl}/sign-in`)).text()).includes("<title>Sign in"), "no sign-in page");
    const page = await fetch(`${baseUrl}/settings`, { headers: { cookie: session.cookie } });
    assert(page.status === 200, `the settings page answered ${page.status}`);
  });
  await check(
    "a pipeline's deploy with an API key against the simulator on the host is answered and recorded",
    async () => {
      await saveKomodoConnection(session, komodo, "podman");
      stack = (await session.request("GET", "/api/v0/stacks")).stacks[0].name;
      key = (await session.request("POST", "/api/v0/apikeys", { name: "pipeline" })).key;
      const deploy = await withKey(key, "POST", "/api/v0/deploy", { stack, action: "pull" });
      assert(deploy.status === 200 && deploy.body.success === true, `deploy: ${JSON.stringify(deploy)}`);
      const { history } = (await session.request("GET", "/api/v0/history")) as { history: HistoryRow[] };
      assert(
        history.some((row) => row.stack === stack && row.actor === "API Key: pipeline"),
        `history: ${JSON.stringify(history)}`,
      );
    },
  );
  await check(
    "a scan runs trivy inside the container against its own Trivy server and ends done",
    async () => {
      const { stacks } = (await session.request("GET", "/api/v0/stacks")) as {
        stacks: { images: string[] }[];
      };
      const image = stacks[0]!.images[0]!;
      await session.request("POST", "/api/v0/security/scan", { images: [image] });
      const query = `/api/v0/security/image?image=${encodeURIComponent(image)}`;
      let status = "";
      await waitFor(`the scan of ${image}`, async () => {
        status = (await session.request("GET", query)).status;
        return status === "done" || status === "failed";
      });
      assert(status === "done", `the scan ended ${status}`);
      const healthz = run("podman", [
        "exec",
        oneName,
        "node",
        "-e",
        "fetch('http://127.0.0.1:4954/healthz').then(r=>console.log(r.status))",
      ]);
      assert(healthz === "200", `the Trivy server answered ${healthz}`);
    },
  );

  step("The one container replaced by a new one on the same volume");
  started = performance.now();
  removeOneContainer();
  runOneContainer();
  await waitFor(
    "the new container to answer /health/ready",
    async () => (await fetch(`${baseUrl}/health/ready`)).ok,
  );
  console.log(`  replaced and ready (${seconds(started)})`);
  const again = new Session(baseUrl, credentials);
  await check("the same admin signs in with the same password, which the log no longer prints", async () => {
    await again.signIn();
    assert(!run("podman", ["logs", oneName]).includes(password), "the password is printed again");
  });
  await check(
    "the Komodo connection (sealed with the generated secret, kept in the volume) still works",
    async () => {
      const { stacks } = await again.request("GET", "/api/v0/stacks");
      assert(stacks.length === 3, `listed ${stacks.length} stacks`);
    },
  );
  await check("the API key still deploys, and the history holds both deploys", async () => {
    const deploy = await withKey(key, "POST", "/api/v0/deploy", { stack, action: "pull" });
    assert(deploy.status === 200, `deploy: ${JSON.stringify(deploy)}`);
    const { history } = (await again.request("GET", "/api/v0/history")) as { history: HistoryRow[] };
    const ours = history.filter((row) => row.stack === stack && row.actor === "API Key: pipeline");
    assert(ours.length === 2, `history: ${JSON.stringify(history)}`);
  });
  await check("reset-password inside the container sets a new password", async () => {
    const output = run("podman", ["exec", oneName, "node", "reset-password.mjs", credentials.email]);
    const reset = /password:\s*(\S+)/i.exec(output)?.[1];
    assert(reset && reset !== password, `no new password in: ${output}`);
    await new Session(baseUrl, { ...credentials, password: reset }).signIn();
  });
  await check("it stops within 10 s on docker stop, exiting 0", () => {
    const stopStarted = performance.now();
    run("podman", ["stop", "-t", "10", oneName]);
    const code = run("podman", ["inspect", "--format", "{{.State.ExitCode}}", oneName]);
    assert(code === "0", `exit code ${code}`);
    assert(performance.now() - stopStarted < 10_000, "took the full 10 s");
  });
  removeOneContainer();
}

// --- compose.ha.yml ------------------------------------------------------------------------------

async function severalBackends(komodo: KomodoSimulator) {
  step("Several backends on PostgreSQL (compose.ha.yml)");
  const session = new Session();
  let key = "";
  let stack = "";
  const deploys = async (count: number) => {
    const answers = await Promise.all(
      Array.from({ length: count }, () => withKey(key, "POST", "/api/v0/deploy", { stack, action: "pull" })),
    );
    return answers.map((answer) => answer.status);
  };
  const deployRequestsOf = (service: string) =>
    (run("podman", ["logs", `${project}_${service}_1`]).match(/"path":"\/api\/v0\/deploy"/g) ?? []).length;

  await check("the admin signs in through the gateway, with both backends on PostgreSQL", async () => {
    // A new database: the seeded password again (the operator tools above reset the first one's).
    admin.password = composeEnv.SEED_ADMIN_PASSWORD;
    await session.signIn();
    await saveKomodoConnection(session, komodo);
    key = (await session.request("POST", "/api/v0/apikeys", { name: "pipeline" })).key;
    stack = (await session.request("GET", "/api/v0/stacks")).stacks[0].name;
  });
  await check("pipelines' deploys are spread over both backends and all answered", async () => {
    const statuses = await deploys(10);
    assert(
      statuses.every((status) => status === 200),
      `answers: ${statuses}`,
    );
    assert(
      deployRequestsOf("backend-1") > 0 && deployRequestsOf("backend-2") > 0,
      `deploy requests per backend: ${deployRequestsOf("backend-1")}, ${deployRequestsOf("backend-2")}`,
    );
  });
  await check(
    "with backend-1 killed, every deploy is still answered, all are in the history, and pages render",
    async () => {
      run("podman", ["kill", "--signal", "KILL", `${project}_backend-1_1`]);
      const statuses = await deploys(10);
      assert(
        statuses.every((status) => status === 200),
        `answers: ${statuses}`,
      );
      const history = await withKey(key, "GET", `/api/v0/history?stack=${stack}`);
      const entries = (history.body.history as { actor: string }[]).filter(
        (row) => row.actor === "API Key: pipeline",
      );
      assert(entries.length === 20, `the history holds ${entries.length} of the 20 deploys`);
      // The dashboard's server asks the backend that is up (BACKEND_URLS) while it renders.
      const page = await fetch(`${baseUrl}/stacks`, { headers: { cookie: session.cookie } });
      const html = await page.text();
      const text = html.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ");
      assert(
        page.status === 200 && html.includes(stack),
        `the stacks page answered ${page.status}: ${text.slice(0, 400)}`,
      );
    },
  );
  await check("backend-1 starts again and is healthy", async () => {
    run("podman", ["start", `${project}_backend-1_1`]);
    await waitFor("backend-1 to be healthy", async () => {
      try {
        run("podman", ["healthcheck", "run", `${project}_backend-1_1`]);
        return true;
      } catch {
        return false;
      }
    });
  });
}

// --- Main -----------------------------------------------------------------------------------------

const started = performance.now();
let komodo: KomodoSimulator | undefined;
try {
  buildImages();
  await checkImages();
  step("Starting compose");
  startPodmanService();
  await waitFor("the podman service", async () => {
    run("docker-compose", ["version"], { env: composeEnv });
    return (
      run("podman", ["--remote", "--url", composeEnv.DOCKER_HOST, "info", "--format", "{{.Host.Arch}}"]) !==
      ""
    );
  });
  await compose("down", "-v", "--remove-orphans");
  // Reachable from the containers for the test's duration only; nothing else may connect.
  komodo = await startKomodoSimulator({ host: "0.0.0.0", stacks: 3, faults: { updateDelayMs: 50 } });
  await oneContainer(komodo);
  runHealthChecks();
  await composeUp();
  const world = await firstUse(komodo);
  await compose("down");
  await composeUp();
  await afterRestart(world);
  await operatorTools();
  await compose("down", "-v", "--remove-orphans");
  composeFiles = ["compose.ha.yml", "scripts/containers/compose.ha.stand-ins.yml"];
  services = ["postgres", "trivy", "backend-1", "backend-2", "frontend", "gateway"];
  await composeUp();
  await severalBackends(komodo);
} catch (error) {
  failed++;
  console.log(`\n✗ ${error instanceof Error ? (error.stack ?? error.message) : error}`);
  try {
    console.log(await compose("logs", "--no-color", "--tail", "40"));
  } catch {}
  try {
    console.log(run("podman", ["logs", "--tail", "40", oneName]));
  } catch {}
  console.log(healthReport());
} finally {
  if (healthLoop) clearInterval(healthLoop);
  removeOneContainer();
  try {
    run("podman", ["volume", "rm", "-f", oneVolume]);
  } catch {}
  await compose("down", "-v", "--remove-orphans").catch(() => {});
  await komodo?.close();
  if (podmanService?.pid) process.kill(-podmanService.pid, "SIGTERM");
  rmSync(work, { recursive: true, force: true });
}
step("The CLI image (packages/cli/Containerfile), on the same base");
await check("it builds, adds under 1 MB, runs as node and deploys from inside", async () => {
  const vitest = join(repo, "node_modules/vitest/vitest.mjs");
  const args = [vitest, "run", "--project", "unit", "packages/cli/src/image.test.ts"];
  const env = { ...process.env, STACKGATE_CONTAINER_TESTS: "1" };
  await execFileAsync(process.execPath, args, { cwd: repo, env, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error) => {
      throw new Error(`${error.stdout ?? ""}${error.stderr ?? ""}`.split("\n").slice(-40).join("\n"));
    },
  );
});
console.log(`\nContainer test finished in ${seconds(started)}`);
console.log(`containers: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
