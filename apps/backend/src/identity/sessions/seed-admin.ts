import { randomBytes } from "node:crypto";
import { type Config, ConfigError } from "../../platform/config.ts";
import type { Auth } from "./better-auth.ts";
import type { FirstPasswordStore } from "./first-password.ts";

export const generatePassword = () => randomBytes(12).toString("base64url");

/**
 * Creates the first admin when nobody with SEED_ADMIN_EMAIL exists yet. Without a given password
 * (allowed outside production) one is generated, kept sealed and handed back to be announced, on
 * this start and every later one until that admin has signed in once.
 */
export async function seedAdmin(
  auth: Auth,
  { seedAdmin: admin, production }: Config,
  firstPassword: FirstPasswordStore,
) {
  const context = await auth.$context;
  if (await context.internalAdapter.findUserByEmail(admin.email)) {
    return { created: false as const, ...(await stillUnused(auth, firstPassword)) };
  }
  if (!admin.password && production) {
    throw new ConfigError(
      `SEED_ADMIN_PASSWORD: required when NODE_ENV=production to create the first admin ${admin.email}; set it (8+ characters) for the first start`,
    );
  }
  const password = admin.password ?? generatePassword();
  // Kept before the admin exists: a crash in between must not leave an admin nobody can sign in as.
  if (!admin.password) firstPassword.keep(admin.email, password);
  const user = await context.internalAdapter.createUser(
    { email: admin.email, name: admin.name, emailVerified: true, role: "admin" },
    { method: "admin" },
  );
  await context.internalAdapter.linkAccount({
    userId: user.id,
    providerId: "credential",
    accountId: user.id,
    password: await context.password.hash(password),
  });
  return {
    created: true as const,
    email: admin.email,
    generatedPassword: admin.password ? undefined : password,
  };
}

/** The kept first password, while its admin exists, has never signed in and it still opens the account. */
async function stillUnused(auth: Auth, firstPassword: FirstPasswordStore) {
  const kept = firstPassword.read();
  if (!kept) {
    firstPassword.forget();
    return {};
  }
  const context = await auth.$context;
  const found = await context.internalAdapter.findUserByEmail(kept.email, { includeAccounts: true });
  const hash = found?.accounts.find((account) => account.providerId === "credential")?.password;
  if (!hash || !(await context.password.verify({ hash, password: kept.password }))) {
    firstPassword.forget();
    return {};
  }
  return { email: kept.email, generatedPassword: kept.password };
}
