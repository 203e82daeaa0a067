/**
 * Issue 17's transfer sizes: the bytes a browser receives (headers and bodies, as Chromium counts
 * them on the wire) for a first visit and a repeat visit of the sign-in page, the overview and the API
 * reference, once without compression (the browser asks for `Accept-Encoding: identity`, as the
 * gateway answered everyone before) and once with it (Chromium's own Accept-Encoding: brotli).
 * Runs the backend, the built frontend and the gateway as their own processes against the Komodo
 * simulator; needs Chromium (CHROME_PATH or /usr/bin/chromium) and builds the frontend first.
 */
import { type BrowserContext, chromium } from "playwright-core";
import {
  buildFrontendInto,
  chromiumOrExit,
  freePort,
  machine,
  startBuiltFrontend,
  startStackgate,
  stopProcesses,
} from "./lib.ts";

const chromiumPath = chromiumOrExit();
const dist = buildFrontendInto("bench-transfer-dist");

const frontendPort = await freePort();
const frontendUrl = `http://127.0.0.1:${frontendPort}`;
const stackgate = await startStackgate({ stacks: 20, gatewayEnv: { FRONTEND_URL: frontendUrl } });
const reactBuild = await startBuiltFrontend(dist, frontendPort, stackgate.gatewayUrl);
const base = stackgate.gatewayUrl;

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
});

/**
 * Bytes Chromium received for everything one navigation loaded: until the page has hydrated and no
 * request but the live event stream has been open for half a second.
 */
async function visit(context: BrowserContext, path: string, compressed: boolean): Promise<number> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  if (!compressed)
    await cdp.send("Network.setExtraHTTPHeaders", { headers: { "Accept-Encoding": "identity" } });
  let bytes = 0;
  const open = new Set<string>();
  let lastChange = Date.now();
  cdp.on("Network.requestWillBeSent", (event) => {
    if (event.type !== "EventSource" && !event.request.url.includes("/events")) open.add(event.requestId);
    lastChange = Date.now();
  });
  const finished = (requestId: string) => {
    open.delete(requestId);
    lastChange = Date.now();
  };
  cdp.on("Network.loadingFinished", (event) => {
    bytes += event.encodedDataLength;
    finished(event.requestId);
  });
  cdp.on("Network.loadingFailed", (event) => finished(event.requestId));
  await page.goto(base + path, { waitUntil: "load" });
  await page.waitForFunction(() => !document.querySelector("astro-island[ssr]"));
  while (open.size > 0 || Date.now() - lastChange < 500) await new Promise((r) => setTimeout(r, 100));
  await page.close();
  return bytes;
}

async function signedInContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const signIn = await fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email: "admin@stackgate.local", password: "bench-password-123" }),
  });
  const cookies = signIn.headers.getSetCookie().map((header) => {
    const [pair = ""] = header.split(";");
    const separator = pair.indexOf("=");
    return { name: pair.slice(0, separator), value: pair.slice(separator + 1), url: base };
  });
  await context.addCookies(cookies);
  return context;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const pages = [
  { name: "sign-in", path: "/sign-in", signedIn: false },
  { name: "overview", path: "/", signedIn: true },
  { name: "/reference", path: "/reference", signedIn: false },
];

console.log(`Transfer per visit (headers + bodies on the wire), ${machine()}, React ${reactBuild} build`);
console.log("page         | first, as is | first, compressed | repeat, as is | repeat, compressed");
console.log("-------------|--------------|-------------------|---------------|-------------------");
for (const { name, path, signedIn } of pages) {
  const figures: number[] = [];
  for (const compressed of [false, true]) {
    // A fresh browser profile per mode: the first visit starts with an empty cache.
    const context = signedIn
      ? await signedInContext()
      : await browser.newContext({ viewport: { width: 1280, height: 800 } });
    figures.push(await visit(context, path, compressed), await visit(context, path, compressed));
    await context.close();
  }
  const [firstPlain, repeatPlain, firstCompressed, repeatCompressed] = figures as [
    number,
    number,
    number,
    number,
  ];
  console.log(
    `${name.padEnd(12)} | ${kb(firstPlain).padStart(12)} | ${kb(firstCompressed).padStart(17)} | ${kb(repeatPlain).padStart(13)} | ${kb(repeatCompressed).padStart(18)}`,
  );
}

await browser.close();
await stopProcesses();
