/**
 * Sets a new generated password for one user, prints it once and signs that user out everywhere.
 *
 *   npm run reset-password -- <email>
 *   node apps/backend/src/identity/sessions/reset-password.ts <email>     (inside the backend container)
 *
 * It reads the same environment as the backend (DATA_DIR, BETTER_AUTH_SECRET) and may run while
 * the backend does.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { and, eq, sql } from "drizzle-orm";
import { createAuditService } from "../../audit/service.ts";
import { openDatabase } from "../../db/database.ts";
import { account, user } from "../../db/schema.ts";
import { systemClock } from "../../platform/clock.ts";
import { ConfigError, loadConfig, resolveAuthSecret } from "../../platform/config.ts";
import { createLogger } from "../../platform/logger.ts";
import { createSecretBox } from "../../platform/secret-box.ts";
import { explainStartupFailure } from "../../platform/startup.ts";
import { endSessions } from "../people/service.ts";
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
const audit = createAuditService({ db: database.db, clock: systemClock });
const auth = createAuth({
  db: database.db,
  authAdapter: database.authAdapter,
  config,
  secret,
  logger: createLogger("silent"),
  clock: systemClock,
  firstPassword,
  audit,
});
const context = await auth.$context;

const [found] = await database.db
  .select({ id: user.id, name: user.name, email: user.email })
  .from(user)
  .where(sql`lower(${user.email}) = ${email.toLowerCase()}`);
if (!found) {
  await database.close();
  exitWith(`No user has the email ${email}: check the address (the first admin is SEED_ADMIN_EMAIL)`);
}
const password = generatePassword();
const hash = await context.password.hash(password);
/** Who did it, in the audit: whoever can run commands where the backend's data is. */
const fromCommandLine = { id: null, name: "command line (npm run reset-password)" };
// The new password, the sessions it ends and their record land together, or nothing does.
await database.db.transaction(async (tx) => {
  const credential = and(eq(account.userId, found.id), eq(account.providerId, "credential"));
  const updated = await tx
    .update(account)
    .set({ password: hash, updatedAt: new Date() })
    .where(credential)
    .returning({ id: account.id });
  if (updated.length === 0) {
    await tx.insert(account).values({
      id: randomUUID(),
      userId: found.id,
      providerId: "credential",
      accountId: found.id,
      password: hash,
    });
  }
  await audit.recordChange(
    { by: fromCommandLine, action: "user.password-reset", target: found.email, detail: { name: found.name } },
    tx,
  );
  await endSessions(tx, audit, { person: found, by: fromCommandLine, because: "password-reset" });
});
// A first password still being announced for this user is replaced by this one.
const kept = firstPassword.read();
if (kept && kept.email.toLowerCase() === found.email.toLowerCase()) firstPassword.forget();
await database.close();

console.log(
  [
    "",
    "  New password for Stackgate",
    `    email:    ${found.email}`,
    `    password: ${password}`,
    "  (shown once; every session of this user was signed out)",
    "",
  ].join("\n"),
);
