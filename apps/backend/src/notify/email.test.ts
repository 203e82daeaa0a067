import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConnectedBackend, type TestBackend } from "../testing/harness.ts";

const USER = "alerts@example.test";
const PASSWORD = "smtp-Password-canary-42";

interface Mail {
  from: string;
  to: string[];
  raw: string;
  /** Whether the connection was TLS when the message came, and who signed in. */
  secure: boolean;
  user: string | undefined;
}

let directory: string;
let certificate: { key: string; cert: string };
let defaultCas: string[];
let world: Awaited<ReturnType<typeof startConnectedBackend>>;
let app: TestBackend;
let cookie: string;
const servers: SMTPServer[] = [];

/** A real SMTP server on a free port (smtp-server), recording every message it accepts. */
async function startSmtp(options: SMTPServerOptions) {
  const mails: Mail[] = [];
  const logins: { secure: boolean; username: string | undefined }[] = [];
  const server = new SMTPServer({
    ...certificate,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(auth, session, callback) {
      logins.push({ secure: session.secure, username: auth.username });
      if (auth.username === USER && auth.password === PASSWORD)
        return callback(null, { user: auth.username });
      return callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString("utf8"),
          secure: session.secure,
          user: session.user as string | undefined,
        });
        callback();
      });
    },
    ...options,
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, mails, logins };
}

beforeAll(async () => {
  // A certificate for 127.0.0.1 that the backend trusts as the test's own authority.
  directory = mkdtempSync(join(tmpdir(), "stackgate-smtp-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      join(directory, "key.pem"),
      "-out",
      join(directory, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  certificate = {
    key: readFileSync(join(directory, "key.pem"), "utf8"),
    cert: readFileSync(join(directory, "cert.pem"), "utf8"),
  };
  defaultCas = tls.getCACertificates("default");
  tls.setDefaultCACertificates([...defaultCas, certificate.cert]);
  world = await startConnectedBackend({
    komodo: { stacks: [{ name: "broken", faults: { failWith: "manifest unknown" } }] },
    keyName: "release",
    config: { alertRetryDelaysMs: [100, 100], alertRetryWindowMs: 10_000 },
  });
  ({ app, cookie } = world);
});
afterAll(async () => {
  await world?.close();
  for (const server of servers) await new Promise((resolve) => server.close(() => resolve(undefined)));
  if (defaultCas) tls.setDefaultCACertificates(defaultCas);
  rmSync(directory, { recursive: true, force: true });
});

const createEmail = async (settings: Record<string, unknown>) => {
  const created = await app.request("/api/v0/notify/channels", {
    method: "POST",
    headers: { cookie },
    json: {
      name: "ops mail",
      kind: "email",
      events: ["deploy.failed"],
      settings: {
        host: "127.0.0.1",
        from: "stackgate@example.test",
        to: ["ops@example.test", "lead@example.test"],
        ...settings,
      },
    },
  });
  expect(created.status, created.text).toBe(200);
  return created.json.channel as { id: string; settings: Record<string, unknown> };
};
/** A channel to the test server over STARTTLS, signing in. */
const createLoginEmail = (port: number, password = PASSWORD) =>
  createEmail({ port, security: "starttls", username: USER, password });
const sendTest = async (id: string) =>
  (await app.request(`/api/v0/notify/channels/${id}/test`, { method: "POST", headers: { cookie } })).json;
const deliveriesOf = async (id: string) =>
  (await app.request(`/api/v0/notify/channels/${id}/deliveries`, { headers: { cookie } })).json.deliveries;

/** The message's headers and its decoded text (quoted-printable, as nodemailer writes long lines). */
function parseMail(raw: string) {
  const [head, ...rest] = raw.split("\r\n\r\n");
  const headers = Object.fromEntries(
    head!
      .replace(/\r\n[ \t]+/g, " ")
      .split("\r\n")
      .map((line) => [
        line.slice(0, line.indexOf(":")).toLowerCase(),
        line.slice(line.indexOf(":") + 1).trim(),
      ]),
  );
  const body = rest.join("\r\n\r\n");
  const text =
    headers["content-transfer-encoding"] === "quoted-printable"
      ? Buffer.from(
          body
            .replace(/=\r\n/g, "")
            .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
          "latin1",
        ).toString("utf8")
      : body;
  return { headers, text };
}

describe("an email channel", () => {
  it("sends over STARTTLS with a login: a plain text email naming the failed deploy", async () => {
    const smtp = await startSmtp({ secure: false });
    const channel = await createLoginEmail(smtp.port);
    expect(channel.settings).toEqual({
      host: "127.0.0.1",
      port: smtp.port,
      security: "starttls",
      username: USER,
      from: "stackgate@example.test",
      to: ["ops@example.test", "lead@example.test"],
      passwordSet: true,
    });
    expect(await sendTest(channel.id)).toEqual({
      delivered: true,
      status: 250,
      message: `The SMTP server at 127.0.0.1:${smtp.port} accepted the message`,
    });
    const deployed = await app.request("/api/v0/deploy", {
      method: "POST",
      headers: { "x-api-key": world.key },
      json: { stack: "broken", action: "pull" },
    });
    expect(deployed.status).toBe(502);
    await expect.poll(() => smtp.mails.length).toBe(2);
    // The login happened only once the connection was TLS.
    expect(smtp.logins.every((login) => login.secure && login.username === USER)).toBe(true);
    const mail = smtp.mails[1]!;
    expect(mail).toMatchObject({
      from: "stackgate@example.test",
      to: ["ops@example.test", "lead@example.test"],
      secure: true,
      user: USER,
    });
    const { headers, text } = parseMail(mail.raw);
    expect(headers.subject).toBe("Deploy failed: pull of broken");
    expect(headers["content-type"]).toMatch(/^text\/plain; charset=utf-8/);
    expect(headers["auto-submitted"]).toBe("auto-generated");
    expect(text).toContain("API Key: release ran 'pull' on 'broken'. Komodo said:");
    expect(text).toContain("manifest unknown");
    expect(text).toContain("Outcome: failed");
    expect(text).toMatch(/Open in Stackgate: http:\/\/localhost:8080\/runs\/[0-9a-f-]{36}/);
    for (const line of [...app.logLines, ...app.responseBodies]) expect(line).not.toContain(PASSWORD);
  });

  it("sends over TLS from the first byte, without a login", async () => {
    const smtp = await startSmtp({ secure: true, authOptional: true });
    const channel = await createEmail({ port: smtp.port, security: "tls" });
    expect(await sendTest(channel.id)).toMatchObject({ delivered: true, status: 250 });
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]).toMatchObject({ secure: true, user: undefined });
    expect(parseMail(smtp.mails[0]!.raw).headers.subject).toBe("Stackgate test alert");
  });

  it("refuses to send where STARTTLS is not offered, and says so", async () => {
    const smtp = await startSmtp({
      secure: false,
      hideSTARTTLS: true,
      disabledCommands: ["STARTTLS"],
      authOptional: true,
    });
    const channel = await createEmail({ port: smtp.port, security: "starttls" });
    expect(await sendTest(channel.id)).toEqual({
      delivered: false,
      status: null,
      message: `The SMTP server at 127.0.0.1:${smtp.port} did not offer STARTTLS; nothing was sent`,
    });
    expect(smtp.mails).toEqual([]);
  });

  it("reports a refused login as the server's answer, and does not try it again", async () => {
    const smtp = await startSmtp({ secure: false });
    const channel = await createLoginEmail(smtp.port, "wrong-password");
    const answer = await sendTest(channel.id);
    expect(answer).toMatchObject({ delivered: false, status: 535 });
    expect(answer.message).toMatch(/^The SMTP server at 127\.0\.0\.1:\d+ answered 535/);
    expect(answer.message).not.toContain("wrong-password");
    const deployed = await app.request("/api/v0/deploy", {
      method: "POST",
      headers: { cookie },
      json: { stack: "broken", action: "pull" },
    });
    expect(deployed.status).toBe(502);
    await expect.poll(async () => (await deliveriesOf(channel.id))[0]?.event).toBe("deploy.failed");
    await expect.poll(async () => (await deliveriesOf(channel.id))[0]?.status).toBe("failed");
    // A refused login is not tried again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [failed] = await deliveriesOf(channel.id);
    expect(failed).toMatchObject({ status: "failed" });
    expect(failed.attempts).toHaveLength(1);
  });

  it("asks for the password again when the server changes", async () => {
    const smtp = await startSmtp({ secure: false });
    const channel = await createLoginEmail(smtp.port);
    const moved = await app.request(`/api/v0/notify/channels/${channel.id}`, {
      method: "PATCH",
      headers: { cookie },
      json: { settings: { host: "mail.example.test" } },
    });
    expect(moved.status).toBe(400);
    expect(moved.json.message).toBe(
      "settings.password: host changed, so give password again (or null for none): a secret never follows a changed address",
    );
    const renamed = await app.request(`/api/v0/notify/channels/${channel.id}`, {
      method: "PATCH",
      headers: { cookie },
      json: { name: "ops mail (primary)", settings: { to: ["ops@example.test"] } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.json.channel.settings).toMatchObject({ to: ["ops@example.test"], passwordSet: true });
  });
});
