import { describe, expect, it } from "vitest";
import { createTranslator } from "./i18n.ts";
import { describeSignInError, readSsoError, signInErrorOf, statusOf } from "./sign-in.ts";

const answer = (status: number, body: unknown = {}, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

describe("reading a sign-in answer", () => {
  it("tells each failure apart, with when to try again after a lockout", async () => {
    expect(await signInErrorOf(answer(200))).toBeNull();
    expect(await signInErrorOf(answer(401))).toEqual({ kind: "wrong-credentials" });
    expect(await signInErrorOf(answer(429, {}, { "retry-after": "754" }))).toEqual({
      kind: "too-many-attempts",
      retryAfterSeconds: 754,
    });
    expect(await signInErrorOf(answer(429))).toEqual({ kind: "too-many-attempts", retryAfterSeconds: null });
    expect(await signInErrorOf(answer(403, { code: "PASSWORD_SIGN_IN_OFF" }))).toEqual({
      kind: "password-off",
    });
    expect(await signInErrorOf(answer(403, { code: "INVALID_ORIGIN" }))).toEqual({
      kind: "failed",
      status: 403,
    });
    expect(await signInErrorOf(answer(503))).toEqual({ kind: "unreachable" });
    expect(statusOf({ kind: "unreachable" })).toBe(503);
  });

  it("says it in English and Spanish", () => {
    const lockout = { kind: "too-many-attempts", retryAfterSeconds: 754 } as const;
    expect(describeSignInError(lockout, createTranslator("en"))).toBe(
      "Too many failed sign-ins. Try again in 13 min.",
    );
    expect(describeSignInError(lockout, createTranslator("es"))).toBe(
      "Demasiados intentos fallidos. Vuelve a probar dentro de 13 min.",
    );
  });

  it("knows only the refusals the backend names", () => {
    expect(readSsoError("no-role")).toBe("no-role");
    expect(readSsoError("<script>")).toBeNull();
    expect(readSsoError(null)).toBeNull();
  });
});
