import { expect, test } from "vitest";
import { preferredLangFromHeader, resolveLang, resolveTheme } from "./preferences.ts";

test.each([
  ["es-ES,es;q=0.9,en;q=0.8", "es"],
  ["en-US,en;q=0.9,es;q=0.8", "en"],
  ["fr-FR,fr;q=0.9,es;q=0.8,en;q=0.7", "es"],
  ["en;q=0.5,es;q=0.9", "es"],
  ["es;q=0,en", "en"],
  ["de,fr", undefined],
  ["", undefined],
  ["*", undefined],
])("Accept-Language %j → %s", (header, expected) => {
  expect(preferredLangFromHeader(header)).toBe(expected);
});

test("the cookie wins over the header, and nonsense falls back", () => {
  expect(resolveLang("es", "en-US")).toBe("es");
  expect(resolveLang("xx", "es-MX")).toBe("es");
  expect(resolveLang(undefined, null)).toBe("en");
  expect(resolveTheme("dark")).toBe("dark");
  expect(resolveTheme("purple")).toBe("system");
  expect(resolveTheme(undefined)).toBe("system");
});
