import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { MAX_SETTLE_SECONDS } from "@stackgate/contract";
import { z } from "zod";

const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const commaList = z
  .string()
  .default("")
  .transform((list) =>
    list
      .split(",")
      .map((value) => value.trim())
      .filter(Boolean),
  );

/** compose.yml passes every variable, unset ones as "": those mean "not set" too. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

/** Single sign-on (OIDC) and password sign-in; see the README's "Single sign-on" section. */
const singleSignOnVariables = {
  OIDC_ISSUER_URL: optional(z.url({ protocol: /^https?$/ })),
  OIDC_CLIENT_ID: optional(z.string()),
  OIDC_CLIENT_SECRET: optional(z.string()),
  OIDC_CLIENT_SECRET_FILE: optional(z.string()),
  OIDC_NAME: optional(z.string().trim().min(1).max(40)),
  OIDC_SCOPES: optional(z.string().trim().min(1)),
  OIDC_ROLE_CLAIM: optional(
    z
      .string()
      .regex(/^[^.\s]+(\.[^.\s]+)*$/, "must be a claim name or a dotted path such as realm_access.roles"),
  ),
  OIDC_ADMIN_VALUES: commaList,
  OIDC_DEPLOYER_VALUES: commaList,
  OIDC_VIEWER_VALUES: commaList,
  OIDC_DEFAULT_ROLE: z
    .enum(["admin", "deployer", "viewer", "refuse"], {
      error: "must be admin, deployer, viewer or refuse",
    })
    .default("refuse"),
  OIDC_AUTO_REDIRECT: z.stringbool().default(false),
  PASSWORD_SIGN_IN: z.stringbool().default(true),
};

const environmentSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  BACKEND_HOST: z.string().min(1).default("127.0.0.1"),
  BACKEND_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  APP_URL: z.url({ protocol: /^https?$/ }).default("http://localhost:8080"),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: optional(
    z
      .string()
      .refine(
        (url) => URL.canParse(url) && /^postgres(ql)?:$/.test(new URL(url).protocol),
        "must be a PostgreSQL URL, postgres://user:password@host:5432/database (unset: SQLite under DATA_DIR)",
      ),
  ),
  BETTER_AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SEED_ADMIN_EMAIL: z.email().default("admin@stackgate.local"),
  SEED_ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
  SEED_ADMIN_NAME: z.string().min(1).max(64).default("Admin"),
  TRIVY_BIN: z.string().min(1).default("trivy"),
  TRIVY_SERVER_URL: z.url({ protocol: /^https?$/ }).default("http://127.0.0.1:4954"),
  SCANNER_SCAN_TIMEOUT_SECONDS: seconds(600),
  SCANNER_SWEEP_DELAY_SECONDS: seconds(30),
  SCANNER_SWEEP_INTERVAL_SECONDS: seconds(300),
  SCANNER_RESCAN_INTERVAL_HOURS: z.coerce.number().positive().default(24),
  DEPLOY_TIMEOUT_SECONDS: seconds(900),
  /** How long a successful redeploy's services are watched (0: not watched); a request may say otherwise. */
  SETTLE_SECONDS: z.coerce
    .number({ error: "must be a number of seconds" })
    .int("must be a whole number of seconds")
    .min(0, "must be at least 0")
    .max(MAX_SETTLE_SECONDS, `must be at most ${MAX_SETTLE_SECONDS}`)
    .default(60),
  /** How often a watched stack's services are read (one read serves every window open on the stack). */
  SETTLE_CHECK_SECONDS: z.coerce.number({ error: "must be a number of seconds" }).min(0.1).max(60).default(5),
  UPSTREAM_TIMEOUT_SECONDS: seconds(10),
  NTFY_TIMEOUT_SECONDS: seconds(5),
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(9).default(7),
  LOG_LEVEL: z.enum(logLevels).default("info"),
  STACKGATE_DEMO: z.stringbool().default(false),
  TRUST_PROXY: z.stringbool().default(false),
  SIGN_IN_MAX_FAILURES_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  SIGN_IN_MAX_FAILURES_PER_IP: z.coerce.number().int().positive().default(30),
  SIGN_IN_WINDOW_MINUTES: z.coerce.number().positive().default(15),
  ...singleSignOnVariables,
});

export type Config = ReturnType<typeof configFrom>;

export class ConfigError extends Error {}

/** Reads and validates the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
  const values = parsed.data;
  if (values.NODE_ENV === "production" && !values.BETTER_AUTH_SECRET) {
    throw new ConfigError(
      "Invalid configuration: BETTER_AUTH_SECRET: required when NODE_ENV=production (make one with `openssl rand -base64 32`)",
    );
  }
  return configFrom(values, singleSignOnFrom(values));
}

/** Why a set of OIDC_* variables cannot work, as the one start-up line names it. */
function singleSignOnFrom(values: z.infer<typeof environmentSchema>) {
  const invalid = (problem: string) => new ConfigError(`Invalid configuration: ${problem}`);
  if (!values.OIDC_ISSUER_URL) {
    const stray = (["OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "OIDC_CLIENT_SECRET_FILE"] as const).find(
      (name) => values[name],
    );
    if (stray)
      throw invalid(
        `OIDC_ISSUER_URL: required when ${stray} is set (single sign-on needs the provider's address)`,
      );
    if (!values.PASSWORD_SIGN_IN)
      throw invalid(
        "PASSWORD_SIGN_IN: false needs single sign-on (OIDC_ISSUER_URL), or nobody could sign in",
      );
    return null;
  }
  if (!values.OIDC_CLIENT_ID) throw invalid("OIDC_CLIENT_ID: required when OIDC_ISSUER_URL is set");
  if (values.OIDC_CLIENT_SECRET && values.OIDC_CLIENT_SECRET_FILE)
    throw invalid("OIDC_CLIENT_SECRET_FILE: set either it or OIDC_CLIENT_SECRET, not both");
  let clientSecret = values.OIDC_CLIENT_SECRET;
  if (values.OIDC_CLIENT_SECRET_FILE) {
    try {
      clientSecret = readFileSync(values.OIDC_CLIENT_SECRET_FILE, "utf8").trim();
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? "unreadable";
      throw invalid(`OIDC_CLIENT_SECRET_FILE: cannot read ${values.OIDC_CLIENT_SECRET_FILE} (${reason})`);
    }
    if (!clientSecret) throw invalid(`OIDC_CLIENT_SECRET_FILE: ${values.OIDC_CLIENT_SECRET_FILE} is empty`);
  }
  if (!clientSecret)
    throw invalid("OIDC_CLIENT_SECRET: required when OIDC_ISSUER_URL is set (or OIDC_CLIENT_SECRET_FILE)");
  const roleClaim = values.OIDC_ROLE_CLAIM ?? "groups";
  // Authelia and Pocket ID send `groups` only to clients that ask for the scope of that name.
  const scopes = values.OIDC_SCOPES ?? `openid email profile${roleClaim === "groups" ? " groups" : ""}`;
  if (!scopes.split(/\s+/).includes("openid")) throw invalid("OIDC_SCOPES: must include openid");
  return {
    issuerUrl: values.OIDC_ISSUER_URL,
    clientId: values.OIDC_CLIENT_ID,
    clientSecret,
    name: values.OIDC_NAME ?? "single sign-on",
    scopes,
    roleClaim,
    roleValues: {
      admin: values.OIDC_ADMIN_VALUES,
      deployer: values.OIDC_DEPLOYER_VALUES,
      viewer: values.OIDC_VIEWER_VALUES,
    },
    /** null: a person whose claim maps to no role is refused. */
    defaultRole: values.OIDC_DEFAULT_ROLE === "refuse" ? null : values.OIDC_DEFAULT_ROLE,
    autoRedirect: values.OIDC_AUTO_REDIRECT,
  };
}

export type SingleSignOnConfig = NonNullable<ReturnType<typeof singleSignOnFrom>>;

function configFrom(
  values: z.infer<typeof environmentSchema>,
  singleSignOn: ReturnType<typeof singleSignOnFrom> = null,
) {
  const dataDir = resolve(values.DATA_DIR);
  return {
    production: values.NODE_ENV === "production",
    host: values.BACKEND_HOST,
    port: values.BACKEND_PORT,
    appUrl: new URL(values.APP_URL).origin,
    dataDir,
    databasePath: join(dataDir, "db.sqlite"),
    /** PostgreSQL when DATABASE_URL is set, else the SQLite file under DATA_DIR. */
    database: values.DATABASE_URL
      ? { postgresUrl: values.DATABASE_URL }
      : { sqlitePath: join(dataDir, "db.sqlite") },
    authSecret: values.BETTER_AUTH_SECRET,
    seedAdmin: {
      email: values.SEED_ADMIN_EMAIL,
      password: values.SEED_ADMIN_PASSWORD,
      name: values.SEED_ADMIN_NAME,
    },
    trivy: {
      bin: values.TRIVY_BIN,
      serverUrl: values.TRIVY_SERVER_URL,
      scanTimeoutMs: values.SCANNER_SCAN_TIMEOUT_SECONDS * 1000,
    },
    sweep: {
      delayMs: values.SCANNER_SWEEP_DELAY_SECONDS * 1000,
      intervalMs: values.SCANNER_SWEEP_INTERVAL_SECONDS * 1000,
      rescanIntervalMs: values.SCANNER_RESCAN_INTERVAL_HOURS * 3_600_000,
    },
    deployTimeoutMs: values.DEPLOY_TIMEOUT_SECONDS * 1000,
    settle: { seconds: values.SETTLE_SECONDS, checkEveryMs: values.SETTLE_CHECK_SECONDS * 1000 },
    upstreamTimeoutMs: values.UPSTREAM_TIMEOUT_SECONDS * 1000,
    /** The time limit of one attempt to deliver an alert, on any channel. */
    alertTimeoutMs: values.NTFY_TIMEOUT_SECONDS * 1000,
    /** How long after a failed attempt the second and third come (a Retry-After asking for longer wins). */
    alertRetryDelaysMs: [30_000, 120_000] as readonly number[],
    /** No attempt starts later than this after the first. */
    alertRetryWindowMs: 300_000,
    /** How often Komodo's stack list is read for newly available image updates (update.available). */
    updateCheckIntervalMs: 300_000,
    shutdownGraceMs: values.SHUTDOWN_GRACE_SECONDS * 1000,
    logLevel: values.LOG_LEVEL,
    demo: values.STACKGATE_DEMO,
    trustProxy: values.TRUST_PROXY,
    signInLimits: {
      failuresPerAccount: values.SIGN_IN_MAX_FAILURES_PER_ACCOUNT,
      failuresPerAddress: values.SIGN_IN_MAX_FAILURES_PER_IP,
      windowMs: values.SIGN_IN_WINDOW_MINUTES * 60_000,
    },
    passwordSignIn: values.PASSWORD_SIGN_IN,
    /** null: single sign-on is not configured. */
    singleSignOn,
  };
}

/**
 * Outside production a missing BETTER_AUTH_SECRET is generated once and kept in the data
 * directory, so sessions and encrypted credentials survive restarts.
 */
export function resolveAuthSecret(config: Config): string {
  if (config.authSecret) return config.authSecret;
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, "auth-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}
