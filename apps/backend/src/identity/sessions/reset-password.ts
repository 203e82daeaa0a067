/**
 * Sets a new generated password for one user, prints it once and signs that user out everywhere.
 *
 *   npm run reset-password -- <email>
 *   node apps/backend/src/identity/sessions/reset-password.ts <email>     (inside the backend container)
 *
 * It reads the same environment as the backend (DATA_DIR, BETTER_AUTH_SECRET) and may run while
 * the backend does.
 */
import { existsSync } from "node:fs";
import { openDatabase } from "../../db/database.ts";
import { systemClock } from "../../platform/clock.ts";
import { ConfigError, loadConfig, resolveAuthSecret } from "../../platform/config.ts";
import { createLogger } from "../../platform/logger.ts";
import { createSecretBox } from "../../platform/secret-box.ts";
import { explainStartupFailure } from "../../platform/startup.ts";
import { createAuth } from "./better-auth.ts";
import { createFirstPasswordStore } from "./first-password.ts";
import { generatePassword } from "./seed-admin.ts";

process.umask(0o077);

function exitWith(line: string): never {
  console.error(line);
  process.exit(1);
}

const [email, ...extra] = process.argv.slice(2);
if (!email || extra.length > 0) {
  exitWith(
    "Usage: npm run reset-password -- <email>   (in the backend container: node apps/backend/src/identity/sessions/reset-password.ts <email>)",
  );
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  exitWith(error instanceof ConfigError ? error.message : String(error));
}
if ("sqlitePath" in config.database && !existsSync(config.databasePath)) {
  exitWith(
    `DATA_DIR: there is no database at ${config.databasePath}: run this with the DATA_DIR the backend uses`,
  );
}

let database: Awaited<ReturnType<typeof openDatabase>>;
try {
  database = await openDatabase(config.database);
} catch (error) {
  exitWith(explainStartupFailure(error, config.databasePath));
}
const secret = resolveAuthSecret(config);
const firstPassword = createFirstPasswordStore({
  dataDir: config.dataDir,
  secretBox: createSecretBox(secret),
});
const auth = createAuth({
  db: database.db,
  authAdapter: database.authAdapter,
  config,
  secret,
  logger: createLogger("silent"),
  clock: systemClock,
  firstPassword,
});
const context = await auth.$context;

const found = await context.internalAdapter.findUserByEmail(email, { includeAccounts: true });
if (!found) {
  await database.close();
  exitWith(`No user has the email ${email}: check the address (the first admin is SEED_ADMIN_EMAIL)`);
}
const password = generatePassword();
const hash = await context.password.hash(password);
if (found.accounts.some((account) => account.providerId === "credential")) {
  await context.internalAdapter.updatePassword(found.user.id, hash);
} else {
  await context.internalAdapter.linkAccount({
    userId: found.user.id,
    providerId: "credential",
    accountId: found.user.id,
    password: hash,
  });
}
await context.internalAdapter.deleteUserSessions(found.user.id);
// A first password still being announced for this user is replaced by this one.
const kept = firstPassword.read();
if (kept && kept.email.toLowerCase() === found.user.email.toLowerCase()) firstPassword.forget();
await database.close();

console.log(
  [
    "",
    "  New password for Stackgate",
    `    email:    ${found.user.email}`,
    `    password: ${password}`,
    "  (shown once; every session of this user was signed out)",
    "",
  ].join("\n"),
);
