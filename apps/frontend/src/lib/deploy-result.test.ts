import { expect, test } from "vitest";
import { deployResultMessage } from "./deploy-result.ts";
import { createTranslator } from "./i18n.ts";

const success = {
  success: true,
  action: "pull",
  stack: "web",
  message: "Acción 'pull' completada para 'web'",
} as const;

test("says a success in the dashboard's language, whatever the API's Spanish message", () => {
  expect(deployResultMessage(success, createTranslator("en"))).toBe("Pulled the images of web");
  expect(deployResultMessage(success, createTranslator("es"))).toBe("Imágenes de web descargadas");
  expect(deployResultMessage({ ...success, action: "pull-redeploy" }, createTranslator("en"))).toBe(
    "Pulled and redeployed web",
  );
});

test("shows a failure's message as it came, in either language", () => {
  const failure = { ...success, success: false, message: "PullStack failed: manifest unknown" };
  expect(deployResultMessage(failure, createTranslator("en"))).toBe(failure.message);
  expect(deployResultMessage(failure, createTranslator("es"))).toBe(failure.message);
});
