import { expect, test } from "vitest";
import { createTranslator } from "./i18n.ts";

test("fills placeholders in both languages", () => {
  expect(createTranslator("en")("footer.version", { version: "1.2.3" })).toBe("Version 1.2.3");
  expect(createTranslator("es")("footer.version", { version: "1.2.3" })).toBe("Versión 1.2.3");
  expect(createTranslator("es")("nav.history")).toBe("Historial");
});
