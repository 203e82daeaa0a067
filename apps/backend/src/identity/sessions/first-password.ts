import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SecretBox } from "../../platform/secret-box.ts";

const FILE_NAME = "first-sign-in";

/**
 * A generated first password, kept sealed in DATA_DIR until its admin first signs in, so that it
 * can be announced again on every start: a first start that fails after creating the admin (a
 * port in use) or a log nobody kept loses nothing.
 */
export function createFirstPasswordStore({ dataDir, secretBox }: { dataDir: string; secretBox: SecretBox }) {
  const file = join(dataDir, FILE_NAME);
  const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  let pendingEmail: string | null = null;

  const store = {
    keep(email: string, password: string) {
      writeFileSync(file, JSON.stringify({ email, sealedPassword: secretBox.seal(password) }), {
        mode: 0o600,
      });
      pendingEmail = email;
    },

    /** The kept password, or null when there is none or it cannot be read with this secret. */
    read(): { email: string; password: string } | null {
      try {
        const { email, sealedPassword } = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
        if (typeof email !== "string" || typeof sealedPassword !== "string") return null;
        pendingEmail = email;
        return { email, password: secretBox.open(sealedPassword) };
      } catch {
        return null;
      }
    },

    forget() {
      rmSync(file, { force: true });
      pendingEmail = null;
    },

    /** Called on every successful sign-in: the first one of the admin ends the announcements. */
    signedIn(email: string) {
      if (pendingEmail !== null && sameEmail(email, pendingEmail)) store.forget();
    },
  };
  return store;
}

export type FirstPasswordStore = ReturnType<typeof createFirstPasswordStore>;
