import { createTransport } from "nodemailer";
import { networkFailureReason } from "../../platform/network.ts";
import { cleanUpstreamLabel, limitLength } from "../../upstream/text.ts";
import { plainText } from "../message.ts";
import { type Attempt, redact, type Send } from "./attempt.ts";

export interface EmailSettings {
  host: string;
  port: number;
  security: "starttls" | "tls";
  username: string | null;
  from: string;
  to: string[];
}

export const defaultSmtpPort = (security: EmailSettings["security"]) => (security === "tls" ? 465 : 587);

/**
 * A plain email with a text part, over SMTP. With `starttls` the connection must turn to TLS before
 * anything is sent (a server that does not offer it is refused); with `tls` it is TLS from the start.
 * The server's certificate is checked as a browser would.
 */
export const sendEmail: Send<EmailSettings, { password?: string | null }> = async (
  { settings, secrets },
  message,
  { timeoutMs, signal },
): Promise<Attempt> => {
  const transport = createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.security === "tls",
    requireTLS: settings.security === "starttls",
    ...(settings.username ? { auth: { user: settings.username, pass: secrets.password ?? "" } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const abort = () => transport.close();
  signal?.addEventListener("abort", abort, { once: true });
  const where = `${settings.host}:${settings.port}`;
  try {
    const info = await withDeadline(
      transport.sendMail({
        from: settings.from,
        to: settings.to,
        subject: message.title,
        text: plainText(message),
        headers: { "Auto-Submitted": "auto-generated" },
      }),
      timeoutMs * 3,
    );
    const code = replyCode(info.response);
    return {
      delivered: true,
      status: code,
      retry: false,
      message: `The SMTP server at ${where} accepted the message`,
    };
  } catch (error) {
    return redacted(failure(error, where), [secrets.password, settings.username]);
  } finally {
    signal?.removeEventListener("abort", abort);
    transport.close();
  }
};

function redacted(attempt: Attempt, secrets: (string | null | undefined)[]): Attempt {
  return { ...attempt, message: redact(attempt.message, secrets) };
}

function failure(error: unknown, where: string): Attempt {
  const { code, responseCode, response } = (error ?? {}) as {
    code?: string;
    responseCode?: number;
    response?: string;
  };
  // Asked for STARTTLS and refused: nothing went over the plain connection.
  if (code === "ETLS" && error instanceof Error && /STARTTLS/i.test(error.message))
    return {
      delivered: false,
      status: null,
      retry: false,
      message: `The SMTP server at ${where} did not offer STARTTLS; nothing was sent`,
    };
  if (typeof responseCode === "number") {
    const said = limitLength(cleanUpstreamLabel(response ?? ""), 200);
    // SMTP's 4xx replies are temporary (try again later); 5xx are final.
    return {
      delivered: false,
      status: responseCode,
      retry: responseCode >= 400 && responseCode < 500,
      message: `The SMTP server at ${where} answered ${said || responseCode}`,
    };
  }
  if (code === "EAUTH")
    return {
      delivered: false,
      status: null,
      retry: false,
      message: `The SMTP server at ${where} refused the login`,
    };
  if (code === "ETIMEDOUT" || code === "DEADLINE")
    return {
      delivered: false,
      status: null,
      retry: true,
      message: `The SMTP server at ${where} did not answer in time`,
    };
  return {
    delivered: false,
    status: null,
    retry: true,
    message: `The SMTP server at ${where} is unreachable: ${networkFailureReason(error)}`,
  };
}

const replyCode = (response: string | undefined) => {
  const code = Number(response?.slice(0, 3));
  return Number.isInteger(code) && code >= 200 ? code : null;
};

/** The whole conversation's limit: each step has `timeoutMs`, a slow server may not add them up forever. */
function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error("deadline"), { code: "DEADLINE" })), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
