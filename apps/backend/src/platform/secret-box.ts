import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";

/**
 * Encrypts stored credentials (upstream key and secret, ntfy token) with AES-256-GCM,
 * under a key derived from the auth secret with HKDF so one secret protects everything.
 */
export function createSecretBox(authSecret: string) {
  const key = Buffer.from(hkdfSync("sha256", authSecret, "stackgate", "stored-credentials", 32));
  return {
    seal(plaintext: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [
        VERSION,
        iv.toString("base64url"),
        cipher.getAuthTag().toString("base64url"),
        sealed.toString("base64url"),
      ].join(".");
    },
    open(box: string): string {
      const [version, iv, tag, sealed] = box.split(".");
      if (version !== VERSION || !iv || !tag || sealed === undefined)
        throw new Error("Unreadable stored credential");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(sealed, "base64url")), decipher.final()]).toString(
        "utf8",
      );
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
