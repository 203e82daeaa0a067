/**
 * The whole service as one process (one-process.ts, run from its sources as `npm start` runs its
 * build): API, pages, event streams and /health on one port, nothing else listening, a clean stop, and
 * an exit, never a half-working process, when a part fails. The dashboard here is a stand-in entry
 * (the real one, built, is driven by a browser in apps/frontend/e2e/one-process.e2e.ts): it renders
 * who is signed in by asking the backend through the `fetch` the process hands it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  freePort,
  type KomodoSimulator,
  standInTrivyPath,
  startKomodoSimulator,
} from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEventStream } from "../../backend/src/testing/event-stream.ts";

const entry = join(import.meta.dirname, "one-process.ts");
const directory = mkdtempSync(join(tmpdir(), "stackgate-one-process-"));
const PASSWORD = "one-process-password-1";

/** A dashboard entry as Astro's node adapter exports one: `handler(req, res)`. */
const standInDashboard = join(directory, "dashboard-entry.mjs");
writeFileSync(
  standInDashboard,
  `const backend = globalThis[Symbol.for("stackgate.backend.fetch")];
if (process.env.STANDIN_DASHBOARD === "throw") throw new Error("the dashboard's build is broken");
if (process.env.STANDIN_DASHBOARD === "reject")
  setTimeout(() => Promise.reject(new Error("a rejection nobody handles")), 20);
export async function handler(req, res) {
  if (req.url === "/reject-while-rendering") {
    Promise.reject(new Error("rejected while rendering"));
    res.writeHead(200, { "content-type": "text/plain" }).end("rendered anyway");
    return;
  }
  if (req.url === "/throw-later") {
    setImmediate(() => { throw new Error("an uncaught exception"); });
    res.end("thrown");
    return;
  }
  const answer = await backend(new Request("http://backend.invalid/api/auth/get-session", {
    headers: { cookie: req.headers.cookie ?? "" },
  }));
  const session = await answer.json();
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end("<p>signed in: " + (session?.user?.email ?? "nobody") + " at " + req.url + "</p>");
}
`,
);

interface Started {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts the one process; resolves once /health answers (or it exited). */
async function startOne(
  env: Record<string, string | undefined> = {},
  { waitForHealth = true } = {},
): Promise<Started> {
  const port = env.PORT ?? String(await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [entry], {
    env: {
      PATH: process.env.PATH ?? "",
      PORT: port,
      GATEWAY_HOST: "127.0.0.1",
      APP_URL: url,
      DATA_DIR: mkdtempSync(join(directory, "data-")),
      SEED_ADMIN_PASSWORD: PASSWORD,
      STACKGATE_FRONTEND_ENTRY: standInDashboard,
      SCANNER_SWEEP_DELAY_SECONDS: "3600",
      LOG_LEVEL: "info",
      ...env,
    } as Record<string, string>,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr!.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  while (waitForHealth && !ended) {
    const healthy = await fetch(`${url}/health`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (healthy) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, child, output: () => output, exited };
}

const running: Started[] = [];
afterAll(() => {
  for (const each of running) if (each.child.exitCode === null) each.child.kill("SIGKILL");
  rmSync(directory, { recursive: true, force: true });
});

/** The TCP ports this process listens on (Linux /proc: its sockets among the listening ones). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]].filter(Boolean);
      } catch {
        return [];
      }
    }),
  );
  const ports: number[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === "0A" && inodes.has(fields[9]!))
        ports.push(Number.parseInt(fields[1]!.split(":")[1]!, 16));
    }
  }
  return ports;
}

async function signIn(url: string, password = PASSWORD) {
  const answer = await fetch(`${url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email: "admin@stackgate.local", password }),
  });
  expect(answer.status).toBe(200);
  return answer.headers
    .getSetCookie()
    .map((each) => each.split(";")[0])
    .join("; ");
}

const postJson = (url: string, body: unknown, headers: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", origin: new URL(url).origin, ...headers },
    body: JSON.stringify(body),
  });

describe("the whole service in one process", () => {
  let komodo: KomodoSimulator;
  let one: Started;
  let cookie: string;
  let key: string;

  beforeAll(async () => {
    komodo = await startKomodoSimulator({ stacks: 5, faults: { updateDelayMs: 50 } });
    komodo.addStack({ name: "slow", faults: { updateDelayMs: 1500 } });
    one = await startOne({ SHUTDOWN_GRACE_SECONDS: "5" });
    running.push(one);
    cookie = await signIn(one.url);
    await postJson(
      `${one.url}/api/v0/deploy/credentials`,
      { name: "k", url: komodo.url, key: komodo.key, secret: komodo.secret },
      { cookie },
    );
    key = (
      (await (await postJson(`${one.url}/api/v0/apikeys`, { name: "pipeline" }, { cookie })).json()) as {
        key: string;
      }
    ).key;
  });
  afterAll(async () => {
    if (one.child.exitCode === null) one.child.kill("SIGKILL");
    await komodo.close();
  });

  it("answers /health and /health/ready, and listens on its one port only", async () => {
    expect(await (await fetch(`${one.url}/health`)).json()).toMatchObject({ status: "ok" });
    expect((await fetch(`${one.url}/health/ready`)).status).toBe(200);
    expect(listeningPorts(one.child.pid!)).toEqual([Number(new URL(one.url).port)]);
  });

  it("serves the API: a key lists the stacks and deploys, and the event stream tells", async () => {
    const stream = await openEventStream(`${one.url}/api/v0/deploy/events`, { "x-api-key": key });
    expect(stream.response.headers.get("x-accel-buffering")).toBe("no");
    expect(await stream.next()).toMatchObject({ type: "subscribed" });
    const listed = (await (
      await fetch(`${one.url}/api/v0/stacks`, { headers: { "x-api-key": key } })
    ).json()) as {
      stacks: { name: string }[];
    };
    expect(listed.stacks).toHaveLength(6);
    const stack = listed.stacks.find((each) => each.name !== "slow")!.name;
    const deploy = await postJson(
      `${one.url}/api/v0/deploy`,
      { stack, action: "pull" },
      { "x-api-key": key },
    );
    expect(deploy.status).toBe(200);
    expect(await deploy.json()).toMatchObject({ success: true, stack });
    const seen: string[] = [];
    while (!seen.includes("finished")) {
      const event = await stream.next();
      if (event.run?.stack === stack) seen.push(event.type);
    }
    expect(seen).toContain("started");
    stream.close();
  });

  it("renders pages with the backend in the same process, and keeps the gateway's headers on them", async () => {
    const page = await fetch(`${one.url}/stacks`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe("<p>signed in: admin@stackgate.local at /stacks</p>");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(await (await fetch(`${one.url}/overview`)).text()).toContain("signed in: nobody");
  });

  it("keeps serving after a promise rejected while a page rendered (the dashboard's own process did too)", async () => {
    expect(await (await fetch(`${one.url}/reject-while-rendering`)).text()).toBe("rendered anyway");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await fetch(`${one.url}/health`)).status).toBe(200);
    expect(one.child.exitCode).toBeNull();
  });

  it("on SIGTERM answers the deploy in flight, ends event streams with a hint to reconnect, and exits 0", async () => {
    const stream = await openEventStream(`${one.url}/api/v0/deploy/events`, { "x-api-key": key });
    await stream.next();
    const deploy = postJson(
      `${one.url}/api/v0/deploy`,
      { stack: "slow", action: "pull" },
      { "x-api-key": key },
    );
    while ((await stream.next()).type !== "started") {}
    one.child.kill("SIGTERM");
    const answer = await deploy;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ success: true, stack: "slow" });
    expect(await one.exited).toBe(0);
    // What the stream still held, up to its end.
    const events: { type: string; run?: { stack: string } }[] = [];
    for (;;) {
      const event = await stream.next().catch(() => undefined);
      if (!event) break;
      events.push(event);
    }
    expect(events).toContainEqual(
      expect.objectContaining({ type: "finished", run: expect.objectContaining({ stack: "slow" }) }),
    );
    expect(stream.rawChunks.join("")).toContain("retry: 500");
    expect(one.output()).toContain("Stackgate stopping");
    expect(one.output()).toContain("Stackgate stopped");
  });
});

describe("the Trivy server it starts (TRIVY_SERVER_START, as in the stackgate image)", () => {
  it("listens where TRIVY_SERVER_URL points, is started again when it dies, and stops with the process", async () => {
    const trivyPort = await freePort();
    const healthz = `http://127.0.0.1:${trivyPort}/healthz`;
    const answers = () =>
      fetch(healthz).then(
        (answer) => answer.status,
        () => 0,
      );
    const one = await startOne({
      TRIVY_SERVER_START: "true",
      TRIVY_BIN: standInTrivyPath,
      TRIVY_SERVER_URL: `http://127.0.0.1:${trivyPort}`,
    });
    running.push(one);
    await expect.poll(answers, { timeout: 15_000 }).toBe(200);
    const server = childrenOf(one.child.pid!).find((child) => child.args.includes("server --listen"))!;
    expect(server.args).toContain(`--listen 127.0.0.1:${trivyPort} --cache-dir `);
    expect(server.args).toContain("trivy-cache");
    process.kill(server.pid, "SIGKILL");
    await expect
      .poll(() => one.output(), { timeout: 15_000 })
      .toContain("trivy    | the Trivy server stopped (killed by SIGKILL); starting it again in 1 s");
    await expect.poll(answers, { timeout: 15_000 }).toBe(200);
    one.child.kill("SIGTERM");
    expect(await one.exited).toBe(0);
    expect(await answers()).toBe(0);
  });

  it("says once when Trivy cannot be found, and serves on", async () => {
    const one = await startOne({ TRIVY_SERVER_START: "true", TRIVY_BIN: join(directory, "no-trivy-here") });
    running.push(one);
    await expect.poll(() => one.output()).toContain("the Trivy server cannot be started (ENOENT)");
    expect((await fetch(`${one.url}/health/ready`)).status).toBe(200);
    one.child.kill("SIGTERM");
    expect(await one.exited).toBe(0);
  });
});

/** The processes `pid` started, with their command lines. */
function childrenOf(pid: number) {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const parent = Number(readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
        const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ");
        return parent === pid ? [{ pid: Number(name), args }] : [];
      } catch {
        return [];
      }
    });
}

describe("the first start", () => {
  it("prints the generated password for the first sign-in, which signs in", async () => {
    const one = await startOne({ SEED_ADMIN_PASSWORD: undefined });
    running.push(one);
    const password = /password: +(\S+)/.exec(one.output())?.[1];
    expect(one.output()).toContain("First sign-in for Stackgate");
    expect(password).toBeDefined();
    await signIn(one.url, password);
    one.child.kill("SIGTERM");
    expect(await one.exited).toBe(0);
  });
});

describe("a part that fails stops the whole process", () => {
  const exits = async (env: Record<string, string | undefined>, options?: { waitForHealth?: boolean }) => {
    const one = await startOne(env, options);
    running.push(one);
    return { code: await one.exited, output: one.output() };
  };

  it("the dashboard's server cannot be found: exit 1, naming what to do", async () => {
    const { code, output } = await exits({ STACKGATE_FRONTEND_ENTRY: join(directory, "missing/entry.mjs") });
    expect(code).toBe(1);
    expect(output).toMatch(/the dashboard's server cannot be loaded from .*missing\/entry\.mjs/);
    expect(output).toContain("STACKGATE_FRONTEND_ENTRY");
  });

  it("the dashboard's server fails while it loads: exit 1", async () => {
    const { code, output } = await exits({ STANDIN_DASHBOARD: "throw" });
    expect(code).toBe(1);
    expect(output).toContain("the dashboard's build is broken");
  });

  it("a promise rejected outside any page, with nothing to handle it: exit 1", async () => {
    const { code, output } = await exits({ STANDIN_DASHBOARD: "reject" });
    expect(code).toBe(1);
    expect(output).toContain("Stackgate stops: a promise was rejected and nothing handled it.");
    expect(output).toContain("a rejection nobody handles");
  });

  it("an uncaught exception: the process ends, not only the part", async () => {
    const one = await startOne();
    running.push(one);
    await fetch(`${one.url}/throw-later`).then((answer) => answer.text());
    expect(await one.exited).not.toBe(0);
    expect(one.output()).toContain("an uncaught exception");
  });

  it("the backend cannot start (DATA_DIR is a file): exit 78 with one line", async () => {
    const file = join(directory, "not-a-directory");
    writeFileSync(file, "");
    const { code, output } = await exits({ DATA_DIR: file }, { waitForHealth: false });
    expect(code).toBe(78);
    expect(output.trim()).toMatch(/^DATA_DIR: .* is a file, not a directory/);
  });

  it("the port is taken: exit 78 with one line", async () => {
    const holder = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", resolve));
    try {
      const { code, output } = await exits({ PORT: String(port) }, { waitForHealth: false });
      expect(code).toBe(78);
      expect(output).toContain(`Stackgate cannot start: port ${port} (PORT) is already in use`);
    } finally {
      holder.close();
    }
  });

  it("a bad setting of the gateway's: exit 78 with one line", async () => {
    const { code, output } = await exits({ MAX_STREAMS_PER_CLIENT: "many" }, { waitForHealth: false });
    expect(code).toBe(78);
    expect(output.trim()).toBe(
      'Stackgate cannot start: MAX_STREAMS_PER_CLIENT must be a whole number from 1 to 1000000, not "many": fix or unset it.',
    );
  });
});
