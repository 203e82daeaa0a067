import { randomBytes } from "node:crypto";
import type { Config } from "../platform/config.ts";
import type { Auth } from "./better-auth.ts";

/**
 * Creates the first admin when nobody with SEED_ADMIN_EMAIL exists yet. Without a given
 * password (allowed outside production) one is generated and handed back to be shown once.
 */
export async function seedAdmin(auth: Auth, { seedAdmin: admin, production }: Config) {
  const context = await auth.$context;
  if (await context.internalAdapter.findUserByEmail(admin.email)) return { created: false as const };
  if (!admin.password && production) {
    throw new Error("SEED_ADMIN_PASSWORD is required to create the first admin when NODE_ENV=production");
  }
  const password = admin.password ?? randomBytes(12).toString("base64url");
  const user = await context.internalAdapter.createUser(
    { email: admin.email, name: admin.name, emailVerified: true },
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
